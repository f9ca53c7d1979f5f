//! The permutation that sorts keys (`argsort`), and records of any type ordered by a key they
//! carry (`sort_by_key`). The keys go to the sorter's backend as one argsort job (on the GPU,
//! staged with their positions as `Kvp`s, only the positions coming back); the records are then
//! permuted on all cores of the host, on the CPU backend's pool (which survives fork). Large
//! records whose keys the GPU sorts are instead put in order on the device in one pipeline, keys
//! and records together (`cuda/records.rs`).

use rayon::prelude::*;

use super::Sorter;
use crate::backend::{record_words, words_per_record, BackendKind, Positions, SortJob};
use crate::gpu::GpuBackend;
use crate::{Key, RecordKey, SortError};

/// Items per parallel task of the host passes here: large enough that rayon's overhead vanishes,
/// small enough that 16 cores share a 1M-item input.
pub(super) const PIECE: usize = 1 << 16;

/// An index type [`Sorter::argsort_into`] writes: `u32` or `u64`. Sealed.
///
/// ```
/// use gpusort::ArgIndex;
/// assert_eq!(<u32 as ArgIndex>::MAX, u32::MAX as u64);
/// ```
pub trait ArgIndex: Copy + Send + Sync + sealed::Sealed + 'static {
    /// The largest position the type holds.
    const MAX: u64;
    #[doc(hidden)]
    fn from_position(i: u64) -> Self;
    #[doc(hidden)]
    fn position(self) -> u64;
    /// `out` as the backends write it.
    #[doc(hidden)]
    fn positions(out: &mut [Self]) -> Positions<'_>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

impl ArgIndex for u32 {
    const MAX: u64 = u32::MAX as u64;
    fn from_position(i: u64) -> u32 {
        i as u32
    }
    fn position(self) -> u64 {
        self as u64
    }
    fn positions(out: &mut [u32]) -> Positions<'_> {
        Positions::U32(out)
    }
}

impl ArgIndex for u64 {
    const MAX: u64 = u64::MAX;
    fn from_position(i: u64) -> u64 {
        i
    }
    fn position(self) -> u64 {
        self
    }
    fn positions(out: &mut [u64]) -> Positions<'_> {
        Positions::U64(out)
    }
}

/// A key with its input position, for permutations longer than `u32` indices reach (CPU only).
#[derive(Clone, Copy)]
struct Positioned<K> {
    key: K,
    at: u64,
}

impl<K: Key> gpusort_cpu::Keyed for Positioned<K> {
    type Key = K;
    fn sort_key(&self) -> K {
        self.key
    }
}

pub(super) fn host_buffer<T>(n: usize, op: &'static str) -> Result<Vec<T>, SortError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| SortError::OutOfMemory { op, bytes: n.saturating_mul(size_of::<T>()) })?;
    Ok(v)
}

/// `n` zero positions from the allocator's zeroed pages: no pass over memory (which `resize`
/// makes on one thread), the pages fault in where the backend writes the result, on all cores.
pub(super) fn zeroed_positions(n: usize, op: &'static str) -> Result<Vec<u32>, SortError> {
    let too_big = || SortError::OutOfMemory { op, bytes: n.saturating_mul(4) };
    if n == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u32>(n).map_err(|_| too_big())?;
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut u32;
    if ptr.is_null() {
        return Err(too_big());
    }
    // SAFETY: allocated by the global allocator with the layout of `n` u32s, all initialised
    // (zero is a u32); the Vec takes ownership and frees it with the same layout.
    Ok(unsafe { Vec::from_raw_parts(ptr, n, n) })
}

/// `v` copied into scratch in huge pages, on all cores, one piece of [`PIECE`] records at a time;
/// `read` takes each piece's keys into its item of `keys` (one per piece) while the piece is still
/// in cache, so the records are read once.
pub(super) fn copy_reading_keys<T, P>(
    v: &[T],
    keys: P,
    read: impl Fn(&[T], P::Item) + Sync,
) -> Result<gpusort_cpu::HugeVec<T>, SortError>
where
    T: Copy + Send + Sync,
    P: IndexedParallelIterator,
{
    let n = v.len();
    // A shorter `keys` would end the zip below early and leave records uncopied.
    assert_eq!(keys.len(), n.div_ceil(PIECE), "copy_reading_keys: one item of keys per piece of records");
    let mut copy = gpusort_cpu::HugeVec::<T>::with_capacity(n)
        .map_err(|e| SortError::OutOfMemory { op: "sort_by_key records (host memory)", bytes: e.bytes })?;
    gpusort_cpu::install(|| {
        copy.spare_capacity_mut().par_chunks_mut(PIECE).zip(keys).zip(v.par_chunks(PIECE)).for_each(|((c, k), s)| {
            // SAFETY: `c` has room for `s.len()` items (same piece of equal lengths) and cannot
            // overlap `s`, which the caller's slice holds.
            unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), c.as_mut_ptr() as *mut T, s.len()) };
            read(s, k);
        })
    });
    // SAFETY: the pieces above (one per piece of `v`, checked) wrote all n records, and the copy
    // has room for n.
    unsafe { copy.set_len(n) };
    Ok(copy)
}

/// `v[i] = copy[positions[i]]`: the records in their sorted order, from the copy in huge pages,
/// whose random reads miss the TLB far less than the caller's pages would. Nothing fails here, so
/// `v` ends sorted or, when an earlier step failed, untouched.
pub(super) fn put_in_order<T: Copy + Send + Sync>(copy: &[T], positions: &[u32], v: &mut [T]) {
    gpusort_cpu::gather(copy, positions, v);
}

impl Sorter {
    /// The stable permutation that sorts `keys` in the sorter's order: `keys[p[0]]`,
    /// `keys[p[1]]`, ... are in order, and equal keys keep their input order. `keys` is only
    /// read. `InvalidArgument` past `u32::MAX + 1` keys (use [`Sorter::argsort_into`] with `u64`
    /// indices there).
    ///
    /// ```
    /// let keys = [2.5f32, -1.0, 2.5, 0.0];
    /// let p = gpusort::Sorter::auto().argsort(&keys)?;
    /// assert_eq!(p, [1, 3, 0, 2]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn argsort<K: Key>(&self, keys: &[K]) -> Result<Vec<u32>, SortError> {
        let mut out = zeroed_positions(keys.len(), "argsort indices (host memory)")?;
        self.argsort_into(keys, &mut out)?;
        Ok(out)
    }

    /// [`Sorter::argsort`] into `out` (`u32` or `u64` indices, one per key; `InvalidArgument`
    /// when the lengths differ or the indices cannot count that far). Up to `u32::MAX + 1` keys
    /// the sorter's backend sorts the keys with their positions and writes the indices at `out`'s
    /// width itself (on the GPU only the keys go up and only the indices come down); longer
    /// inputs, which only `u64` indices reach, are sorted by the CPU backend. On failure `out`
    /// holds what it held or the complete result, never part of one; the keys are never written.
    ///
    /// ```
    /// let keys = [30u64, 10, 20];
    /// let mut p = [0u64; 3];
    /// gpusort::Sorter::auto().with_order(gpusort::Order::Descending).argsort_into(&keys, &mut p)?;
    /// assert_eq!(p, [0, 2, 1]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn argsort_into<K: Key, I: ArgIndex>(&self, keys: &[K], out: &mut [I]) -> Result<(), SortError> {
        let n = keys.len();
        if out.len() != n {
            return Err(SortError::InvalidArgument(format!("{n} keys but room for {} indices", out.len())));
        }
        if n.saturating_sub(1) as u64 > I::MAX {
            return Err(SortError::InvalidArgument(format!("{n} keys: u32 indices count up to 2^32; use u64")));
        }
        if self.reorders_floats::<K>() {
            return self.lexsort_into(&[crate::Column::new(keys)], out);
        }
        if n < 2 {
            // The backends return at once for fewer than two items: the one position is 0.
            self.check_config()?;
            out.iter_mut().for_each(|o| *o = I::from_position(0));
            return Ok(());
        }
        if n <= 1 << 32 {
            return self.run_stable(SortJob::Argsort(K::view(keys), I::positions(out)));
        }
        self.check_config()?;
        let mut items = host_buffer::<Positioned<K>>(n, "argsort items (host memory)")?;
        gpusort_cpu::install(|| {
            items.par_extend(keys.par_iter().enumerate().map(|(i, &key)| Positioned { key, at: i as u64 }));
            gpusort_cpu::sort_stable(&mut items, self.order())
                .map_err(|e| SortError::OutOfMemory { op: "argsort scratch (host memory)", bytes: e.bytes })?;
            // Every position is below n, and n - 1 fits `I` (checked above).
            out.par_chunks_mut(PIECE)
                .zip(items.par_chunks(PIECE))
                .for_each(|(o, s)| o.iter_mut().zip(s).for_each(|(o, s)| *o = I::from_position(s.at)));
            Ok(())
        })
    }

    /// Sorts records of any `Copy` type by the key `key` reads from each, stably, in the sorter's
    /// order. The key is one [`Key`] or a tuple of up to four of them, compared lexicographically
    /// (the first element first: see [`RecordKey`](crate::RecordKey)). Float keys follow the
    /// sorter's float order ([`Sorter::with_float_order`]).
    ///
    /// A single key is read on all cores and sorted with its positions (on the GPU when the
    /// sorter picks it); then the records are put in that order. Large inputs on the GPU (records
    /// of whole 4-byte words, at least `tuning::RECORDS_ON_DEVICE_FROM_BYTES` of them) are put in
    /// order on the device: the keys go up and are sorted there with their positions, the records
    /// go up and back through pinned memory, which keeps them meanwhile. Others are copied to
    /// scratch in huge pages (their keys read in the same pass) and gathered back into `v` on all
    /// cores. Extra host memory: a key per record on the device path; a record, a key and a `u32`
    /// per record on the host path. On failure `v` keeps its original contents.
    ///
    /// ```
    /// #[derive(Clone, Copy, Debug, PartialEq)]
    /// struct Row { id: u32, score: f64, name: [u8; 4] }
    /// let mut rows = vec![
    ///     Row { id: 0, score: 2.5, name: *b"ann " },
    ///     Row { id: 1, score: -1.0, name: *b"bob " },
    ///     Row { id: 2, score: 2.5, name: *b"cat " },
    /// ];
    /// gpusort::Sorter::auto().sort_by_key(&mut rows, |r| r.score)?;
    /// assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), [1, 0, 2]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_by_key<T, K, F>(&self, v: &mut [T], key: F) -> Result<(), SortError>
    where
        T: Copy + Send + Sync,
        K: RecordKey,
        F: Fn(&T) -> K + Sync,
    {
        K::sort_records(self, v, key)
    }

    /// Whether `n` records need sorting (two or more), after the checks every `sort_by_key`
    /// makes: the sorter's configuration, and no more records than `u32` positions count.
    pub(super) fn records_to_sort(&self, n: usize) -> Result<bool, SortError> {
        if n > 1 << 32 {
            return Err(SortError::InvalidArgument(format!("{n} records: sort_by_key takes up to 2^32")));
        }
        self.check_config()?;
        Ok(n >= 2)
    }

    /// `sort_by_key` by one key.
    pub(super) fn sort_by_one_key<T, K, F>(&self, v: &mut [T], key: F) -> Result<(), SortError>
    where
        T: Copy + Send + Sync,
        K: Key,
        F: Fn(&T) -> K + Sync,
    {
        if self.reorders_floats::<K>() {
            // The float order is folded into the keys' bits by the lexsort machinery.
            return <(K,) as RecordKey>::sort_records(self, v, |r| (key(r),));
        }
        let n = v.len();
        if !self.records_to_sort(n)? {
            return Ok(());
        }
        let on_device = words_per_record::<T>().and_then(|_| self.records_gpu::<K>(n, size_of::<T>()));
        if let Some(gpu) = on_device {
            // The records stay where they are until the device has put them in order: only their
            // keys are read here, into huge pages (fewer faults than a fresh allocation's).
            let mut keys = gpusort_cpu::HugeVec::<K>::with_capacity(n)
                .map_err(|e| SortError::OutOfMemory { op: "sort_by_key keys (host memory)", bytes: e.bytes })?;
            gpusort_cpu::install(|| {
                keys.spare_capacity_mut().par_chunks_mut(PIECE).zip(v.par_chunks(PIECE)).for_each(|(k, s)| {
                    k.iter_mut().zip(s).for_each(|(k, r)| {
                        k.write(key(r));
                    })
                })
            });
            // SAFETY: the pieces above wrote all n keys.
            unsafe { keys.set_len(n) };
            // SAFETY: the device writes back whole records, each at a record boundary, or leaves
            // `v` as it was.
            let words = unsafe { record_words(v) }.expect("records_gpu checked that the records are whole words");
            match gpu.sort_records(K::view(&keys), words, self.order()) {
                Ok(()) => return self.after_sort(Ok(())),
                // Too large for the device or the pinned buffer now: the host path below.
                Err(SortError::OutOfMemory { .. } | SortError::Unsupported { .. }) => {}
                Err(e) => return self.after_sort(Err(e)),
            }
        }
        let mut keys = host_buffer::<K>(n, "sort_by_key keys (host memory)")?;
        let mut positions = zeroed_positions(n, "sort_by_key positions (host memory)")?;
        let copy = copy_reading_keys(v, keys.spare_capacity_mut()[..n].par_chunks_mut(PIECE), |s, k| {
            k.iter_mut().zip(s).for_each(|(k, r)| {
                k.write(key(r));
            })
        })?;
        // SAFETY: `copy_reading_keys` handed every piece of the n keys to the closure, which
        // wrote each of them.
        unsafe { keys.set_len(n) };
        // On the calling thread: a GPU sort must not run on a pool worker (see `Sorter::run`).
        self.run_stable(SortJob::Argsort(K::view(&keys), Positions::U32(&mut positions)))?;
        drop(keys);
        put_in_order(&copy, &positions, v);
        Ok(())
    }

    /// The GPU that puts `n` records of `size` bytes in order, if any: at least
    /// `tuning::RECORDS_ON_DEVICE_FROM_BYTES` of them, whose keys' argsort this sorter runs on
    /// the GPU. (Whether the records can move as whole words is the caller's check.)
    pub(super) fn records_gpu<K: Key>(&self, n: usize, size: usize) -> Option<&GpuBackend> {
        let gpu = self.live_gpu()?;
        let shape = SortJob::Argsort(K::view(&[]), Positions::U32(&mut [])).shape();
        let on_gpu = self.pick(shape, n).kind() == BackendKind::Cuda;
        (on_gpu && gpu.records_on_device(n.saturating_mul(size))).then_some(gpu)
    }
}
