//! Radix scatter through write-combining buffers, for destinations that are not in cache.
//!
//! A plain scatter into a cold buffer makes every store to a fresh line wait for that line to be
//! read from memory first, with one such stream per bucket in flight. Here items bound for one
//! bucket gather in a 64-byte buffer of their own (all 256 fit in L1) and reach memory a whole
//! line at a time through non-temporal stores, which skip that read. Lines shared with a
//! neighbouring task's share of the bucket are written item by item, so no two tasks write the
//! same bytes. Items keep their order within each bucket: the scatter stays stable.

use std::mem::{size_of, MaybeUninit};

use crate::key::RadixBits;
use crate::keyfn::KeyFn;
use crate::raw::Ptr;

const LINE: usize = 64;

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; LINE]);

/// Whether [`scatter`] can move items of type `T` into `dst`: whole items per line, and `dst`
/// on an item boundary so that every line starts at an item.
pub(crate) fn fits<T>(dst: Ptr<T>) -> bool {
    let s = size_of::<T>();
    s > 0 && s.is_power_of_two() && s <= LINE && (dst.0 as usize).is_multiple_of(s)
}

/// Moves the items of `range` from `src` to `dst` by byte `d`; `offs[b]` is where the next item
/// with digit b goes. Returns once every store is visible to other threads.
///
/// # Safety
/// [`fits`] holds for `dst`; `src` holds the range; for each b, `dst` has room for the bucket's
/// items from `offs[b]` on, and no one else writes there meanwhile.
pub(crate) unsafe fn scatter<T: Copy, B: RadixBits, F: KeyFn<T, B>>(
    src: Ptr<T>,
    dst: Ptr<T>,
    range: std::ops::Range<usize>,
    d: usize,
    offs: &mut [usize; 256],
    key: F,
) {
    let per = LINE / size_of::<T>();
    let mask = per - 1;
    // Index i of dst sits in slot (i + phase) & mask of its line.
    let phase = (dst.0 as usize % LINE) / size_of::<T>();
    let begin = *offs;
    let mut lines = MaybeUninit::<[Line; 256]>::uninit();
    let buf = lines.as_mut_ptr() as *mut T;
    let own = |b: usize, from: usize, to: usize| {
        for q in from..to {
            // SAFETY: slots from..to of bucket b were filled in this call; the caller owns them in dst.
            unsafe { *dst.0.add(q) = *buf.add(b * per + ((q + phase) & mask)) };
        }
    };
    for i in range {
        let x = *src.0.add(i);
        let b = key(&x).byte(d);
        let p = offs[b];
        let slot = (p + phase) & mask;
        buf.add(b * per + slot).write(x);
        offs[b] = p + 1;
        if slot == mask {
            if p + 1 >= begin[b] + per {
                stream_line(buf.add(b * per) as *const u8, dst.0.add(p + 1 - per) as *mut Line);
            } else {
                // The line begins before this task's share of the bucket.
                own(b, begin[b], p + 1);
            }
        }
    }
    for b in 0..256 {
        let end = offs[b];
        // The open line may begin before dst itself when dst is not on a line boundary.
        let start = end.saturating_sub((end + phase) & mask);
        own(b, start.max(begin[b]), end);
    }
    store_fence();
}

/// Copies `len` items from `src` to `dst` (a range not in cache) with non-temporal stores, and
/// fences them.
///
/// # Safety
/// Both ranges valid for `len` items and disjoint; `src` initialised.
pub(crate) unsafe fn copy<T: Copy>(src: Ptr<T>, dst: Ptr<T>, len: usize) {
    let bytes = len * size_of::<T>();
    let (s, t) = (src.0 as *const u8, dst.0 as *mut u8);
    // Bytes before the first whole line of dst, then whole lines, then the rest.
    let head = ((LINE - t as usize % LINE) % LINE).min(bytes);
    let lines = (bytes - head) / LINE;
    std::ptr::copy_nonoverlapping(s, t, head);
    for l in 0..lines {
        let at = head + l * LINE;
        stream_line(s.add(at), t.add(at) as *mut Line);
    }
    let done = head + lines * LINE;
    std::ptr::copy_nonoverlapping(s.add(done), t.add(done), bytes - done);
    store_fence();
}

/// Writes the 64 bytes at `src` (any alignment) to the line `dst` without reading it first.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn stream_line(src: *const u8, dst: *mut Line) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    let (s, t) = (src as *const __m128i, dst as *mut __m128i);
    _mm_stream_si128(t, _mm_loadu_si128(s));
    _mm_stream_si128(t.add(1), _mm_loadu_si128(s.add(1)));
    _mm_stream_si128(t.add(2), _mm_loadu_si128(s.add(2)));
    _mm_stream_si128(t.add(3), _mm_loadu_si128(s.add(3)));
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn stream_line(src: *const u8, dst: *mut Line) {
    std::ptr::copy_nonoverlapping(src, dst as *mut u8, LINE);
}

/// Non-temporal stores are weakly ordered: fence them before the task reports completion.
#[cfg(target_arch = "x86_64")]
fn store_fence() {
    // SAFETY: sfence has no preconditions (SSE, part of x86_64).
    unsafe { std::arch::x86_64::_mm_sfence() }
}

#[cfg(not(target_arch = "x86_64"))]
fn store_fence() {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item lands where a plain stable scatter puts it, for each start phase, with the
    /// input split into tasks whose bucket shares meet inside lines.
    #[test]
    fn matches_a_plain_scatter() {
        let mut s = 7u64;
        let n = 5000;
        let src: Vec<u64> = (0..n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                s >> 32
            })
            .collect();
        let key = |x: &u64| *x as u32;
        for d in 0..2 {
            for phase in 0..8 {
                for chunks in [1usize, 3, 7] {
                    let mut want = src.clone();
                    want.sort_by_key(|x| key(x).byte(d));
                    let mut dst = vec![u64::MAX; n + 8];
                    let out = Ptr(dst[phase..].as_mut_ptr());
                    let cl = n.div_ceil(chunks);
                    let mut offs = vec![[0usize; 256]; chunks];
                    for c in 0..chunks {
                        for x in &src[c * cl..((c + 1) * cl).min(n)] {
                            offs[c][key(x).byte(d)] += 1;
                        }
                    }
                    let mut at = 0;
                    for b in 0..256 {
                        for o in offs.iter_mut() {
                            let k = o[b];
                            o[b] = at;
                            at += k;
                        }
                    }
                    for (c, o) in offs.iter_mut().enumerate() {
                        let r = c * cl..((c + 1) * cl).min(n);
                        // SAFETY: dst has room for n items from out; shares are disjoint.
                        unsafe { scatter(Ptr(src.as_ptr() as *mut u64), out, r, d, o, key) };
                    }
                    let bad: Vec<usize> = (0..n).filter(|&i| dst[phase + i] != want[i]).take(10).collect();
                    assert!(bad.is_empty(), "d {d} phase {phase} chunks {chunks}: wrong at {bad:?}, ptr {:?}", out.0);
                }
            }
        }
    }
}
