//! Stable parallel radix sort on rayon.
//!
//! Large regions take one MSD pass on their highest varying byte: a per-chunk histogram, then a
//! stable scatter (chunk c writes after chunks 0..c in each bucket) into the other buffer. Each of
//! the 256 buckets is then sorted on its own, in parallel. Once a bucket fits in L2 it is finished
//! by LSD passes on its remaining bytes, which stay in cache; bytes that are constant in the bucket
//! are skipped. Every pass is stable, so the whole sort is.
//!
//! Items travel between the caller's slice and one scratch buffer of the same length. Each region
//! is told in which of the two its result must land, so nothing is copied back at the end except
//! where a bucket's pass count leaves it on the wrong side (a copy that stays in cache).
//!
//! Large sorts ("cold": more data than the caches hold) never scatter straight into memory that
//! is not cached, where each store to a fresh line waits for that line to be read first: the MSD
//! pass goes through write-combining buffers (see `wc`), and a bucket's LSD passes ping-pong
//! between the bucket (just read, so in L2) and a per-thread buffer, its result going out in one
//! sequential copy. On the 2-core dev machine (criterion `cpu16m`, loaded, median of four runs)
//! 16M random 8-byte pairs went from 1.27x voracious_mt_sort's time to 0.70x (283 ms against
//! 401 ms in the same runs).

use rayon::prelude::*;

use crate::alloc::AllocError;
use crate::key::RadixBits;
use crate::keyfn::KeyFn;
use crate::raw::{self, copy, Ptr, Scratch};
use crate::{presorted, wc};

/// Regions up to this length are insertion-sorted: fewer moves than four counting passes.
const INSERTION_MAX: usize = 24;
/// Regions of at most this many bytes are finished by LSD passes: the region and its scratch
/// twin (2 MiB together) stay in one core's L2.
const LSD_MAX_BYTES: usize = 1 << 20;
/// Inputs up to this length are sorted on the calling thread (LSD, no MSD pass). Lowering it to
/// 32K was slower on the H200 machine's 16 cores (random Kvp, 2026-11-22): 32K 0.315 ms and 64K
/// 0.824 ms through the pool, against 0.233 and 0.483 ms on the calling thread; waking the pool
/// costs more than the work below 128K (0.321 ms there, in parallel).
pub(crate) const SEQ_MAX: usize = 1 << 16;
/// Regions at least this long split their histogram and scatter over the pool.
const PAR_MIN: usize = 1 << 17;
/// Sorts of at least this many bytes take the paths for data that is not in cache: MSD scatters
/// through write-combining buffers, bucket LSD passes in a per-thread buffer. Measured on the
/// 2-core dev machine (L2 2 MiB per core), 8-byte items: 512K items 8.6 ms against 14.5 ms
/// without, 256K 4.8 against 5.1, 140K 2.7 against 2.4.
const COLD_MIN_BYTES: usize = 4 << 20;
/// A cold MSD pass with at least this many non-empty buckets scatters through write-combining
/// buffers; with fewer, a plain scatter is faster. 16M 8-byte items, process CPU time on the
/// 2-core dev machine, plain against write-combining: 16 distinct keys 145 against 200 ms, 48
/// keys (about 44 buckets) 184 against 192, 100 keys 307 against 209, 200 keys 379 against 235.
const WC_MIN_BUCKETS: usize = 48;
/// Items per histogram/scatter task in a parallel MSD pass.
const PAR_CHUNK: usize = 1 << 18;

/// Sorts `v` stably by `key`, ascending, on the low `digits` bytes of the keys (at most
/// `B::BYTES`; the bytes above them must be the same in every key, as they are for small keys,
/// see `SortKey::KEY_BYTES`). On `Err` nothing was written: the scratch buffer is the only
/// allocation that can fail, and it is had before the first pass.
pub(crate) fn sort<T: Copy + Send + Sync, B: RadixBits, F: KeyFn<T, B>>(
    v: &mut [T],
    digits: usize,
    key: F,
) -> Result<(), AllocError> {
    let digits = digits.min(B::BYTES);
    let n = v.len();
    if n <= INSERTION_MAX {
        // SAFETY: `v` holds `n` items.
        unsafe { insertion(Ptr(v.as_mut_ptr()), n, key) };
        return Ok(());
    }
    if presorted::settle(v, key) {
        return Ok(());
    }
    let mut scratch = Scratch::<T>::new(n)?;
    let (a, b) = (Ptr(v.as_mut_ptr()), scratch.ptr());
    // SAFETY: `a` holds `n` initialised items, `b` has room for `n`; the two do not overlap.
    unsafe {
        if n <= SEQ_MAX {
            lsd(a, b, n, digits, true, false, key);
        } else {
            msd(a, b, n, digits, true, std::mem::size_of_val(v) >= COLD_MIN_BYTES, key);
        }
    }
    Ok(())
}

/// Sorts the `len` items at `src` on their low `digits` bytes (higher ones are equal within the
/// region), leaving the result at `src` when `land_in_src`, else at `other`. `cold` marks a
/// region of a sort too large for the caches (see the module docs).
///
/// # Safety
/// `src` holds `len` initialised items, `other` has room for `len`, and no one else touches
/// either range meanwhile.
unsafe fn region<T: Copy + Send + Sync, B: RadixBits, F: KeyFn<T, B>>(
    src: Ptr<T>,
    other: Ptr<T>,
    len: usize,
    digits: usize,
    land_in_src: bool,
    cold: bool,
    key: F,
) {
    if digits == 0 || len <= INSERTION_MAX {
        // No digits left means all keys are equal: already in (stable) order.
        if digits > 0 {
            insertion(src, len, key);
        }
        if !land_in_src {
            copy_out(src, other, len, cold);
        }
    } else if len * std::mem::size_of::<T>() <= LSD_MAX_BYTES {
        lsd(src, other, len, digits, land_in_src, cold, key);
    } else {
        msd(src, other, len, digits, land_in_src, cold, key);
    }
}

/// One MSD pass on byte `digits - 1`, then every bucket sorted on the bytes below it.
///
/// # Safety
/// As for [`region`].
unsafe fn msd<T: Copy + Send + Sync, B: RadixBits, F: KeyFn<T, B>>(
    src: Ptr<T>,
    other: Ptr<T>,
    len: usize,
    digits: usize,
    land_in_src: bool,
    cold: bool,
    key: F,
) {
    let d = digits - 1;
    let parallel = len >= PAR_MIN;
    let chunks = if parallel { len.div_ceil(PAR_CHUNK).max(2 * rayon::current_num_threads()) } else { 1 };
    // One histogram per chunk, in a table that grows with the input. Earlier passes may have
    // moved items already, so rather than fail halfway when even this small table cannot be had,
    // the pass counts and scatters on one thread, with its one histogram on the stack.
    let mut tables: Vec<[usize; 256]> = Vec::new();
    let split = chunks > 1 && tables.try_reserve_exact(chunks).is_ok();
    let chunks = if split { chunks } else { 1 };
    let chunk_len = len.div_ceil(chunks);
    let range = |c: usize| (c * chunk_len).min(len)..((c + 1) * chunk_len).min(len);
    let mut one = [[0usize; 256]];
    let counts: &mut [[usize; 256]] = if split {
        (0..chunks).into_par_iter().map(|c| histogram(src, range(c), d, key)).collect_into_vec(&mut tables);
        &mut tables
    } else {
        one[0] = histogram_whole(src, len, d, key);
        &mut one
    };
    let mut starts = [0usize; 257];
    for b in 0..256 {
        starts[b + 1] = starts[b] + counts.iter().map(|h| h[b]).sum::<usize>();
    }
    if (0..256).any(|b| starts[b + 1] - starts[b] == len) {
        // Byte d is the same everywhere: go straight to the highest byte that varies.
        let varying = varying_digits(src, len, d, key);
        return region(src, other, len, varying, land_in_src, cold, key);
    }
    // Chunk c's share of bucket b follows the shares of chunks 0..c: the scatter is stable.
    let offsets = counts;
    for b in 0..256 {
        let mut at = starts[b];
        for h in offsets.iter_mut() {
            let n = h[b];
            h[b] = at;
            at += n;
        }
    }
    // A cold destination takes whole lines through write-combining buffers, unless there are so
    // few buckets that the hardware keeps up with their write streams on its own.
    let occupied = (0..256).filter(|&b| starts[b + 1] > starts[b]).count();
    let streamed = cold && occupied >= WC_MIN_BUCKETS && wc::fits(other);
    let pass = |range: std::ops::Range<usize>, offs: &mut [usize; 256]| {
        // SAFETY: each call gets its own chunk and its own share of every bucket.
        unsafe {
            if streamed {
                wc::scatter(src, other, range, d, offs, key)
            } else {
                scatter(src, other, range, d, offs, key)
            }
        }
    };
    if split {
        offsets.par_iter_mut().enumerate().for_each(|(c, offs)| pass(range(c), offs));
    } else {
        pass(0..len, &mut offsets[0]);
    }
    let bucket = |b: usize| {
        let (s, e) = (starts[b], starts[b + 1]);
        if e > s {
            // SAFETY: buckets are disjoint sub-ranges of both buffers.
            unsafe { region(other.at(s), src.at(s), e - s, d, !land_in_src, cold, key) }
        }
    };
    if parallel {
        (0..256).into_par_iter().for_each(bucket);
    } else {
        (0..256).for_each(bucket);
    }
}

/// How many low bytes vary across the region (0 when all keys are equal). The keys all lie
/// between the least and the greatest, so bytes above the highest one where those two differ are
/// common to every key.
unsafe fn varying_digits<T: Sync, B: RadixBits, F: KeyFn<T, B>>(
    src: Ptr<T>,
    len: usize,
    below: usize,
    key: F,
) -> usize {
    let items = std::slice::from_raw_parts(src.0 as *const T, len);
    let (lo, hi) = if len >= PAR_MIN {
        items
            .par_chunks(PAR_CHUNK)
            .map(|c| min_max(c, key))
            .reduce_with(|a, b| (a.0.min(b.0), a.1.max(b.1)))
            .expect("region is not empty")
    } else {
        min_max(items, key)
    };
    (0..below).rev().find(|&i| lo.byte(i) != hi.byte(i)).map_or(0, |i| i + 1)
}

fn min_max<T, B: RadixBits, F: KeyFn<T, B>>(items: &[T], key: F) -> (B, B) {
    let first = key(&items[0]);
    items.iter().fold((first, first), |(lo, hi), x| {
        let k = key(x);
        (lo.min(k), hi.max(k))
    })
}

/// Counts byte `d` over `range`. Four interleaved tables keep runs of equal digits from
/// serialising on one counter.
unsafe fn histogram<T, B: RadixBits, F: KeyFn<T, B>>(
    src: Ptr<T>,
    range: std::ops::Range<usize>,
    d: usize,
    key: F,
) -> [usize; 256] {
    let mut h = [[0u32; 256]; 4];
    let items = std::slice::from_raw_parts(src.0.add(range.start) as *const T, range.len());
    let mut quads = items.chunks_exact(4);
    for q in &mut quads {
        h[0][key(&q[0]).byte(d)] += 1;
        h[1][key(&q[1]).byte(d)] += 1;
        h[2][key(&q[2]).byte(d)] += 1;
        h[3][key(&q[3]).byte(d)] += 1;
    }
    for x in quads.remainder() {
        h[0][key(x).byte(d)] += 1;
    }
    // u32 tables are half the cache footprint; a range holds at most PAR_CHUNK items (see
    // `msd` and `histogram_whole`), so no table overflows.
    let mut out = [0usize; 256];
    for (b, o) in out.iter_mut().enumerate() {
        *o = (h[0][b] + h[1][b] + h[2][b] + h[3][b]) as usize;
    }
    out
}

/// Counts byte `d` over the whole region, a chunk at a time (so no u32 table overflows).
unsafe fn histogram_whole<T, B: RadixBits, F: KeyFn<T, B>>(src: Ptr<T>, len: usize, d: usize, key: F) -> [usize; 256] {
    let mut total = [0usize; 256];
    for start in (0..len).step_by(PAR_CHUNK) {
        let h = histogram(src, start..(start + PAR_CHUNK).min(len), d, key);
        total.iter_mut().zip(h).for_each(|(t, c)| *t += c);
    }
    total
}

/// Moves the items of `range` from `src` to `dst` by byte `d`; `offs[b]` is where the next item
/// with digit b goes.
unsafe fn scatter<T: Copy, B: RadixBits, F: KeyFn<T, B>>(
    src: Ptr<T>,
    dst: Ptr<T>,
    range: std::ops::Range<usize>,
    d: usize,
    offs: &mut [usize; 256],
    key: F,
) {
    for i in range {
        let x = *src.0.add(i);
        let b = key(&x).byte(d);
        *dst.0.add(offs[b]) = x;
        offs[b] += 1;
    }
}

/// Stable insertion sort of the `len` items at `p`.
unsafe fn insertion<T: Copy, B: RadixBits, F: KeyFn<T, B>>(p: Ptr<T>, len: usize, key: F) {
    let v = std::slice::from_raw_parts_mut(p.0, len);
    for i in 1..len {
        let x = v[i];
        let k = key(&x);
        let mut j = i;
        while j > 0 && key(&v[j - 1]) > k {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// LSD passes over the low `digits` bytes, skipping bytes that are constant in the region.
///
/// # Safety
/// As for [`region`]; `len` fits in a u32.
unsafe fn lsd<T: Copy, B: RadixBits, F: KeyFn<T, B>>(
    src: Ptr<T>,
    other: Ptr<T>,
    len: usize,
    digits: usize,
    land_in_src: bool,
    cold: bool,
    key: F,
) {
    let mut counts = [[0u32; 256]; 8];
    match digits {
        1 => count_digits::<T, B, F, 1>(src, len, &mut counts, key),
        2 => count_digits::<T, B, F, 2>(src, len, &mut counts, key),
        3 => count_digits::<T, B, F, 3>(src, len, &mut counts, key),
        4 => count_digits::<T, B, F, 4>(src, len, &mut counts, key),
        5 => count_digits::<T, B, F, 5>(src, len, &mut counts, key),
        6 => count_digits::<T, B, F, 6>(src, len, &mut counts, key),
        7 => count_digits::<T, B, F, 7>(src, len, &mut counts, key),
        _ => count_digits::<T, B, F, 8>(src, len, &mut counts, key),
    }
    let mut passes = [0usize; 8];
    let mut k = 0;
    for (d, h) in counts.iter().enumerate().take(digits) {
        // A byte that is the same for every item needs no pass.
        if h.iter().all(|&c| c as usize != len) {
            passes[k] = d;
            k += 1;
        }
    }
    let passes = &passes[..k];
    if cold && k > 0 && raw::hot_fits::<T>() {
        // Without a hot buffer (no memory for it) the plain passes below do the same, slower.
        if let Some(()) = raw::with_hot(len, |hot| lsd_via(src, other, hot, len, passes, &counts, land_in_src, key)) {
            return;
        }
    }
    let (mut from, mut to) = (src, other);
    for &d in passes {
        scatter(from, to, 0..len, d, &mut starts(&counts[d]), key);
        std::mem::swap(&mut from, &mut to);
    }
    if (k % 2 == 0) != land_in_src {
        copy_out(from, to, len, cold);
    }
}

/// Copies a finished region to the other buffer; in a cold sort that buffer is not in cache, so
/// long copies stream past it.
unsafe fn copy_out<T: Copy>(src: Ptr<T>, dst: Ptr<T>, len: usize, cold: bool) {
    if cold && len * std::mem::size_of::<T>() >= 1 << 12 {
        wc::copy(src, dst, len);
    } else {
        copy(src, dst, len);
    }
}

/// Where each digit's items start, from the digit's counts.
fn starts(counts: &[u32; 256]) -> [usize; 256] {
    let mut offs = [0usize; 256];
    let mut at = 0usize;
    for (o, &c) in offs.iter_mut().zip(counts.iter()) {
        *o = at;
        at += c as usize;
    }
    offs
}

/// LSD passes for a bucket of a large sort, whose twin in `other` is not in cache. The passes
/// ping-pong between `src` (just read, so in L2) and this thread's `hot` buffer (in L2 from the
/// last bucket), so no pass scatters into memory that is not cached; a result due in `other`
/// goes there in one sequential non-temporal copy.
///
/// # Safety
/// As for [`region`]; `hot` has room for `len` items.
#[allow(clippy::too_many_arguments)]
unsafe fn lsd_via<T: Copy, B: RadixBits, F: KeyFn<T, B>>(
    src: Ptr<T>,
    other: Ptr<T>,
    hot: Ptr<T>,
    len: usize,
    passes: &[usize],
    counts: &[[u32; 256]; 8],
    land_in_src: bool,
    key: F,
) {
    let (mut from, mut to) = (src, hot);
    for &d in passes {
        scatter(from, to, 0..len, d, &mut starts(&counts[d]), key);
        std::mem::swap(&mut from, &mut to);
    }
    if !land_in_src {
        wc::copy(from, other, len);
    } else if from.0 != src.0 {
        copy(from, src, len);
    }
}

unsafe fn count_digits<T, B: RadixBits, F: KeyFn<T, B>, const D: usize>(
    src: Ptr<T>,
    len: usize,
    counts: &mut [[u32; 256]; 8],
    key: F,
) {
    let items = std::slice::from_raw_parts(src.0 as *const T, len);
    for x in items {
        let k = key(x);
        for (d, h) in counts.iter_mut().enumerate().take(D) {
            h[k.byte(d)] += 1;
        }
    }
}
