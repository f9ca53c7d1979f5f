//! Stable parallel k-way merge of sorted runs, on all cores: the last step of the out-of-core
//! sort (runs sorted on the GPU one at a time, merged here).
//!
//! The output is cut into equal parts; for each cut, a binary search over the key range finds how
//! many items of each run come before it (multi-sequence selection), so every part is an
//! independent sequential merge of sub-runs into its own output range. Ties go to the lower run
//! index, then the earlier position: with runs cut from the input in order and each sorted
//! stably, the merge is stable.

use rayon::prelude::*;

/// Output items per parallel part, at least: smaller parts cost more in searches than they gain.
const MIN_PART: usize = 1 << 16;
/// Parts per thread, so uneven key distributions still keep every core busy.
const PARTS_PER_THREAD: usize = 4;

/// Merges `runs`, each sorted ascending by `key`, into `out` (whose length is their total),
/// stably. Descending runs merge through a key that reverses the order (`!k`).
///
/// # Panics
/// When `out.len()` differs from the total length of the runs (an internal error).
pub(crate) fn merge_runs<T, F>(runs: &[&[T]], out: &mut [T], key: F)
where
    T: Copy + Send + Sync,
    F: Fn(&T) -> u64 + Sync,
{
    let total: usize = runs.iter().map(|r| r.len()).sum();
    assert_eq!(total, out.len(), "merge output length");
    let runs: Vec<&[T]> = runs.iter().copied().filter(|r| !r.is_empty()).collect();
    match runs.len() {
        0 => return,
        1 => return crate::hostcopy::par_copy(out, runs[0]),
        _ => {}
    }
    // On the CPU backend's pool, as every CPU sort: never on rayon's global pool, whose threads
    // may be busy (or, in a forked child, absent).
    gpusort_cpu::install(|| {
        let threads = rayon::current_num_threads().max(1);
        let parts = (total / MIN_PART).clamp(1, threads * PARTS_PER_THREAD);
        // Cut c holds, per run, how many of its items precede output rank total * c / parts.
        let cuts: Vec<Vec<usize>> =
            (0..=parts).into_par_iter().map(|c| select(&runs, total * c / parts, &key)).collect();
        let mut pieces: Vec<&mut [T]> = Vec::with_capacity(parts);
        let mut rest = out;
        for c in 0..parts {
            let len = total * (c + 1) / parts - total * c / parts;
            let (head, tail) = rest.split_at_mut(len);
            pieces.push(head);
            rest = tail;
        }
        pieces.into_par_iter().enumerate().for_each(|(c, dst)| {
            let sub: Vec<&[T]> = runs.iter().enumerate().map(|(j, r)| &r[cuts[c][j]..cuts[c + 1][j]]).collect();
            merge_seq(&sub, dst, &key);
        });
    })
}

/// For output rank `rank`, how many items of each run come before it in the stable order.
pub(crate) fn select<T, F: Fn(&T) -> u64>(runs: &[&[T]], rank: usize, key: &F) -> Vec<usize> {
    let total: usize = runs.iter().map(|r| r.len()).sum();
    if rank == 0 {
        return vec![0; runs.len()];
    }
    if rank >= total {
        return runs.iter().map(|r| r.len()).collect();
    }
    let at_most = |v: u64| -> usize { runs.iter().map(|r| r.partition_point(|x| key(x) <= v)).sum() };
    // The smallest key v with at least `rank` items <= v: the key of the item at rank - 1.
    let (mut lo, mut hi) = (0u64, u64::MAX);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if at_most(mid) >= rank {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let v = lo;
    let mut cut: Vec<usize> = runs.iter().map(|r| r.partition_point(|x| key(x) < v)).collect();
    // Items equal to v fill the remaining ranks run by run: earlier runs first (stability).
    let mut left = rank - cut.iter().sum::<usize>();
    for (c, r) in cut.iter_mut().zip(runs) {
        let equal = r[*c..].partition_point(|x| key(x) <= v);
        let take = equal.min(left);
        *c += take;
        left -= take;
    }
    debug_assert_eq!(left, 0);
    cut
}

/// Items per block of a part merged in rounds: the rounds' scratch (256 KiB of pairs) stays in
/// the core's L2, so only the runs' reads and the output's writes reach memory.
const ROUND_BLOCK: usize = 1 << 15;

/// One part: a sequential merge of `runs` into `out`. Two runs merge directly; more merge block by
/// block (`ROUND_BLOCK` output items, cut with `select`), each block in rounds of two-way merges of
/// neighbouring runs (neighbours keep the run order, so ties still go to the earlier run). A winner
/// tree over all heads reads each item once, but its leaf-to-root replay is a chain of dependent
/// loads: 4 runs of 4M pairs merged 2.5x slower that way than in two rounds of the merge below.
fn merge_seq<T: Copy, F: Fn(&T) -> u64>(runs: &[&[T]], out: &mut [T], key: &F) {
    let live: Vec<&[T]> = runs.iter().copied().filter(|r| !r.is_empty()).collect();
    match live.len() {
        0 => return,
        1 => return out.copy_from_slice(live[0]),
        2 => return merge_two(live[0], live[1], out, key),
        _ => {}
    }
    let total = out.len();
    let mut tmp = vec![live[0][0]; total.min(ROUND_BLOCK)];
    let mut from = vec![0usize; live.len()];
    let mut at = 0;
    while at < total {
        let end = (at + ROUND_BLOCK).min(total);
        let to = if end == total { live.iter().map(|r| r.len()).collect() } else { select(&live, end, key) };
        let sub: Vec<&[T]> = live.iter().zip(from.iter().zip(&to)).map(|(r, (&a, &b))| &r[a..b]).collect();
        merge_rounds(&sub, &mut out[at..end], &mut tmp[..end - at], key);
        from = to;
        at = end;
    }
}

/// Merges three or more runs into `out` in rounds that alternate between `out` and `tmp` (same
/// length); the last round writes `out`.
fn merge_rounds<T: Copy, F: Fn(&T) -> u64>(live: &[&[T]], out: &mut [T], tmp: &mut [T], key: &F) {
    let rounds = live.len().next_power_of_two().trailing_zeros();
    let mut into_out = rounds % 2 == 1;
    let mut lens: Vec<usize> = live.iter().map(|r| r.len()).collect();
    // The first round reads the runs themselves; later rounds read the previous round's buffer.
    {
        let dst: &mut [T] = if into_out { out } else { tmp };
        merge_round(live, dst, key);
    }
    lens = pair_lens(&lens);
    for _ in 1..rounds {
        let (src, dst): (&[T], &mut [T]) = if into_out { (&*out, &mut *tmp) } else { (&*tmp, &mut *out) };
        let mut at = 0;
        let parts: Vec<&[T]> = lens
            .iter()
            .map(|&l| {
                at += l;
                &src[at - l..at]
            })
            .collect();
        merge_round(&parts, dst, key);
        lens = pair_lens(&lens);
        into_out = !into_out;
    }
    debug_assert!(into_out);
}

fn pair_lens(lens: &[usize]) -> Vec<usize> {
    lens.chunks(2).map(|c| c.iter().sum()).collect()
}

/// Merges runs 0+1, 2+3, ... into consecutive ranges of `dst` (an odd last run is copied).
fn merge_round<T: Copy, F: Fn(&T) -> u64>(runs: &[&[T]], dst: &mut [T], key: &F) {
    let mut at = 0;
    for pair in runs.chunks(2) {
        let len: usize = pair.iter().map(|r| r.len()).sum();
        let d = &mut dst[at..at + len];
        match pair {
            [a, b] => merge_two(a, b, d, key),
            [a] => d.copy_from_slice(a),
            _ => unreachable!(),
        }
        at += len;
    }
}

/// Two-way merge, from both ends at once: two independent dependency chains per step, and no
/// branch on the comparison (random keys would mispredict half of the time). The front takes
/// the smallest item, the earlier run on ties; the back the largest, the later run on ties; with
/// that strict order the two halves meet exactly.
fn merge_two<T: Copy, F: Fn(&T) -> u64>(a: &[T], b: &[T], out: &mut [T], key: &F) {
    let n = out.len();
    debug_assert_eq!(n, a.len() + b.len());
    if a.is_empty() || b.is_empty() {
        out[..a.len()].copy_from_slice(a);
        out[a.len()..].copy_from_slice(b);
        return;
    }
    // Exhausted sides read as 2^64 at the front and -1 at the back: every real key beats them.
    let (la, lb) = (a.len(), b.len());
    let (mut i, mut j) = (0usize, 0usize);
    let (mut ia, mut jb) = (la, lb);
    let front = n - n / 2;
    for o in 0..n / 2 {
        // SAFETY (all four unchecked accesses): the indices are clamped into 0..la and 0..lb
        // (both non-empty), and o < n / 2 <= n - 1 - o < n.
        let (x, y) = unsafe { (*a.get_unchecked(i.min(la - 1)), *b.get_unchecked(j.min(lb - 1))) };
        let kx = if i < la { key(&x) as u128 } else { 1 << 64 };
        let ky = if j < lb { key(&y) as u128 } else { 1 << 64 };
        let ta = kx <= ky;
        unsafe { *out.get_unchecked_mut(o) = if ta { x } else { y } };
        i += ta as usize;
        j += !ta as usize;

        let (x, y) = unsafe { (*a.get_unchecked(ia.max(1) - 1), *b.get_unchecked(jb.max(1) - 1)) };
        let kx = if ia > 0 { key(&x) as i128 } else { -1 };
        let ky = if jb > 0 { key(&y) as i128 } else { -1 };
        let ta = kx > ky;
        unsafe { *out.get_unchecked_mut(n - 1 - o) = if ta { x } else { y } };
        ia -= ta as usize;
        jb -= !ta as usize;
    }
    if front > n / 2 {
        // Odd length: the middle item, taken from the front.
        let kx = if i < la { key(&a[i]) as u128 } else { 1 << 64 };
        let ky = if j < lb { key(&b[j]) as u128 } else { 1 << 64 };
        out[n / 2] = if kx <= ky { a[i] } else { b[j] };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (key, run, position): the witness of stability.
    type Item = (u32, u32, u32);

    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut r = gpusort_cpu::rng::SplitMix64(seed);
        move || r.next()
    }

    /// Runs of the given lengths with keys from `draw`, each sorted stably, and the expected
    /// merge: a stable sort of their concatenation.
    fn case(lengths: &[usize], mut draw: impl FnMut() -> u32, descending: bool) -> (Vec<Vec<Item>>, Vec<Item>) {
        let mut runs = Vec::new();
        for (r, &len) in lengths.iter().enumerate() {
            let mut run: Vec<Item> = (0..len as u32).map(|p| (draw(), r as u32, p)).collect();
            if descending {
                run.sort_by_key(|x| std::cmp::Reverse(x.0));
            } else {
                run.sort_by_key(|x| x.0);
            }
            runs.push(run);
        }
        let mut expect: Vec<Item> = runs.concat();
        if descending {
            expect.sort_by_key(|x| std::cmp::Reverse(x.0));
        } else {
            expect.sort_by_key(|x| x.0);
        }
        (runs, expect)
    }

    fn run_case(lengths: &[usize], draw: impl FnMut() -> u32, descending: bool) {
        let (runs, expect) = case(lengths, draw, descending);
        let refs: Vec<&[Item]> = runs.iter().map(|r| r.as_slice()).collect();
        let mut out = vec![(0, 0, 0); expect.len()];
        if descending {
            merge_runs(&refs, &mut out, |x| !(x.0 as u64));
        } else {
            merge_runs(&refs, &mut out, |x| x.0 as u64);
        }
        if let Some(i) = out.iter().zip(&expect).position(|(a, b)| a != b) {
            panic!("lengths {lengths:?} desc={descending}: first difference at {i}: {:?} vs {:?}", out[i], expect[i]);
        }
    }

    #[test]
    fn merging_never_waits_on_rayons_global_pool() {
        let mut r = rng(5);
        // Long enough for several parallel parts.
        let (runs, expect) = case(&[300_000, 200_001, 100_003], || r() as u32, false);
        let n = expect.len();
        let outcome = gpusort_cpu::check::with_global_pool_held(std::time::Duration::from_secs(120), move || {
            let refs: Vec<&[Item]> = runs.iter().map(|r| r.as_slice()).collect();
            let mut out = vec![(0, 0, 0); n];
            merge_runs(&refs, &mut out, |x| x.0 as u64);
            out
        });
        let out = outcome.expect("the merge waited on rayon's global pool");
        assert!(out == expect, "merged wrongly");
    }

    #[test]
    fn empty_and_single_runs() {
        run_case(&[], || 0, false);
        run_case(&[0], || 0, false);
        run_case(&[0, 0, 0], || 0, false);
        let mut r = rng(1);
        run_case(&[1], || r() as u32, false);
        run_case(&[0, 5, 0], || r() as u32, false);
        run_case(&[100_003], || r() as u32, true);
    }

    #[test]
    fn two_runs_all_shapes() {
        let mut r = rng(2);
        for (a, b) in [(1, 1), (1, 0), (0, 1), (2, 3), (1000, 1), (1, 1000), (70_001, 65_536), (200_000, 3)] {
            run_case(&[a, b], || r() as u32, false);
            run_case(&[a, b], || r() as u32, true);
        }
    }

    #[test]
    fn equal_keys_keep_run_then_position_order() {
        // All equal: the output must be run 0 in order, then run 1, ... (parallel cuts included).
        for desc in [false, true] {
            run_case(&[300_000, 1, 250_007, 0, 77], || 42, desc);
            run_case(&[3, 3, 3], || 7, desc);
        }
        let mut r = rng(3);
        run_case(&[131_072, 131_071, 131_073, 5], || (r() % 4) as u32, false);
        run_case(&[131_072, 131_071, 131_073, 5], || (r() % 4) as u32, true);
    }

    #[test]
    fn extreme_keys() {
        let mut r = rng(4);
        let mut extremes = || if r() & 1 == 0 { 0 } else { u32::MAX };
        run_case(&[100_000, 99_999, 3, 140_000], &mut extremes, false);
        run_case(&[100_000, 99_999, 3, 140_000], &mut extremes, true);
        run_case(&[10, 10], || u32::MAX, false);
        run_case(&[10, 10], || 0, true);
    }

    #[test]
    fn many_uneven_runs() {
        let mut r = rng(5);
        let lengths: Vec<usize> = (0..37).map(|i| (r() % 20_000) as usize + (i % 3)).collect();
        run_case(&lengths, || r() as u32, false);
        run_case(&lengths, || r() as u32, true);
        let lengths: Vec<usize> = (0..130).map(|i| if i % 7 == 0 { 0 } else { (r() % 3000) as usize }).collect();
        run_case(&lengths, || (r() % 1000) as u32, false);
        run_case(&lengths, || (r() % 1000) as u32, true);
    }

    #[test]
    fn presorted_and_reversed_concatenations() {
        // Runs that do not interleave at all: every cut falls on a run boundary or inside one run.
        let mut next = 0u32;
        run_case(
            &[50_000, 70_000, 90_001],
            || {
                next += 1;
                next
            },
            false,
        );
        let mut next = u32::MAX;
        run_case(
            &[50_000, 70_000, 90_001],
            || {
                next -= 1;
                next
            },
            true,
        );
    }

    #[test]
    fn select_cuts_are_consistent() {
        let mut r = rng(6);
        let (runs, _) = case(&[1000, 17, 0, 4000, 999], || (r() % 50) as u32, false);
        let refs: Vec<&[Item]> = runs.iter().map(|r| r.as_slice()).collect();
        let key = |x: &Item| x.0 as u64;
        let total: usize = refs.iter().map(|r| r.len()).sum();
        let mut prev = vec![0; refs.len()];
        for rank in 0..=total {
            let cut = select(&refs, rank, &key);
            assert_eq!(cut.iter().sum::<usize>(), rank);
            assert!(cut.iter().zip(&prev).all(|(c, p)| c >= p), "cuts must not move back at rank {rank}");
            prev = cut;
        }
    }
}
