//! Under an address-space limit (`ulimit -v`, a container's memory limit) a CPU sort that cannot
//! get its scratch memory returns `OutOfMemory` with the data untouched, and the process lives
//! on (rather than aborting). Each case runs in a forked child, so the limit never reaches
//! the test harness.
//!
//! RLIMIT_AS counts address space, not memory in use: thread stacks and glibc's per-thread malloc
//! arenas (64 MiB reserved each) count too. So the child first starts the sort's threads with a
//! smaller sort, then sets the limit relative to the address space it is using at that point.

mod child;
mod common;

use std::time::Duration;

use child::{run_in_child, say, Outcome};
use common::{bits, kvp_input, Pair, Pattern};
use gpusort::{check, Order, SortError, Sorter};
use gpusort_cpu::simd::Isa;

const MB: usize = 1_000_000;
/// 50M split u32 pairs: 400 MB of data; the sort packs them (400 MB) and sorts the packed copy
/// with a scratch buffer of the same size (400 MB).
const N: usize = 50_000_000;
const PACKED_BYTES: usize = N * 8;
const DEADLINE: Duration = Duration::from_secs(300);

/// The address space this process uses now, in bytes.
fn address_space() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        .expect("VmSize in /proc/self/status");
    kb * 1024
}

/// Sets the soft address-space limit (`None`: back to the hard limit).
fn limit_address_space(bytes: Option<usize>) {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: plain system calls on a local struct.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_AS, &mut lim), 0);
        lim.rlim_cur = bytes.map_or(lim.rlim_max, |b| (b as libc::rlim_t).min(lim.rlim_max));
        assert_eq!(libc::setrlimit(libc::RLIMIT_AS, &lim), 0, "setrlimit: {}", std::io::Error::last_os_error());
    }
}

/// Starts the CPU backend's threads (and their malloc arenas) and frees its kept scratch, so the
/// limit set next leaves exactly the headroom asked for.
fn settle_backend() {
    let mut warm = kvp_input(1 << 20, Pattern::Random, 1);
    Sorter::cpu().sort_kvp(&mut warm).unwrap();
    gpusort::release_scratch();
}

/// What one limited sort did: `Err` text for the parent, or the sort's result.
fn with_headroom<R>(headroom: usize, sort: impl FnOnce() -> R) -> R {
    limit_address_space(Some(address_space() + headroom));
    let r = sort();
    limit_address_space(None);
    r
}

/// The child's checks of a 50M-pair sort with `headroom` bytes of address space to spare.
/// `must_fail`: the headroom cannot hold what the sort needs, by the numbers above.
fn split_pairs_case(headroom: usize, must_fail: bool) -> i32 {
    settle_backend();
    let keys: Vec<u32> = bits(N, Pattern::Random, 7).into_iter().map(|b| b as u32).collect();
    let values: Vec<u32> = (0..N as u32).collect();
    let (mut k, mut v) = (keys.clone(), values.clone());
    let r = with_headroom(headroom, || Sorter::cpu().sort_pairs(&mut k, &mut v));
    let what = format!("50M pairs with {} MB of headroom", headroom / MB);
    match r {
        Err(SortError::OutOfMemory { bytes, .. }) => {
            if k != keys || v != values {
                say(&format!("{what}: OutOfMemory, but the data changed"));
                return 1;
            }
            if bytes != PACKED_BYTES {
                say(&format!("{what}: OutOfMemory for {bytes} bytes, expected {PACKED_BYTES}"));
                return 1;
            }
            0
        }
        Ok(()) if !must_fail => {
            let before: Vec<Pair<u32>> = keys.iter().zip(&values).map(|(&key, &value)| Pair { key, value }).collect();
            let after: Vec<Pair<u32>> = k.iter().zip(&v).map(|(&key, &value)| Pair { key, value }).collect();
            match check::validate(&before, &after, Order::Ascending, true) {
                Ok(()) => 0,
                Err(e) => {
                    say(&format!("{what}: {e}"));
                    1
                }
            }
        }
        r => {
            say(&format!("{what}: {r:?}"));
            1
        }
    }
}

/// Split pairs with `u64` values: 30M of them (360 MB) pack into 16-byte items (480 MB), which
/// 200 MB of headroom cannot hold: `OutOfMemory`, both slices as they were.
fn u64_values_case() -> i32 {
    const N64: usize = 30_000_000;
    settle_backend();
    let keys: Vec<u32> = bits(N64, Pattern::Random, 8).into_iter().map(|b| b as u32).collect();
    let values: Vec<u64> = (0..N64 as u64).map(|i| i << 32 | i).collect();
    let (mut k, mut v) = (keys.clone(), values.clone());
    match with_headroom(200 * MB, || Sorter::cpu().sort_pairs(&mut k, &mut v)) {
        Err(SortError::OutOfMemory { .. }) if k == keys && v == values => 0,
        r => {
            say(&format!(
                "30M pairs with u64 values, 200 MB of headroom: {r:?} (data changed: {})",
                k != keys || v != values
            ));
            1
        }
    }
}

fn expect_clean_exit(what: &str, outcome: Outcome) {
    assert_eq!(outcome, Outcome::Exited(0), "{what}: the child failed (its stderr says why; a signal is an abort)");
}

#[test]
fn no_room_for_the_packed_pairs_is_out_of_memory() {
    // 300 MB cannot hold the 400 MB packed copy: the sort must fail, before writing.
    let outcome = run_in_child("300 MB headroom", DEADLINE, || split_pairs_case(300 * MB, true));
    expect_clean_exit("300 MB headroom", outcome);
}

#[test]
fn no_room_for_pairs_with_u64_values_is_out_of_memory() {
    let outcome = run_in_child("u64 values, 200 MB headroom", DEADLINE, u64_values_case);
    expect_clean_exit("u64 values, 200 MB headroom", outcome);
}

#[test]
fn no_room_for_the_scratch_is_out_of_memory() {
    // 600 MB holds the packed copy but not its 400 MB scratch too: the second allocation fails.
    let outcome = run_in_child("600 MB headroom", DEADLINE, || split_pairs_case(600 * MB, true));
    expect_clean_exit("600 MB headroom", outcome);
}

#[test]
fn enough_room_sorts() {
    // 1.2 GB holds both (800 MB) with room to spare: the limit alone must not fail a sort.
    let outcome = run_in_child("1200 MB headroom", DEADLINE, || split_pairs_case(1200 * MB, false));
    expect_clean_exit("1200 MB headroom", outcome);
}

#[test]
fn kvp_and_u64_keys_report_out_of_memory_too() {
    let outcome = run_in_child("Kvp and u64 keys", DEADLINE, || {
        settle_backend();
        let mut failures = Vec::new();
        // 25M Kvp (200 MB) need a 200 MB scratch buffer; 100 MB cannot hold it.
        let input = kvp_input(N / 2, Pattern::Random, 8);
        let mut v = input.clone();
        match with_headroom(100 * MB, || Sorter::cpu().sort_kvp(&mut v)) {
            Err(SortError::OutOfMemory { bytes, .. }) if v == input && bytes == N / 2 * 8 => {}
            r => failures.push(format!("25M Kvp: {r:?}, data kept: {}", v == input)),
        }
        // 25M u64 keys (200 MB) on the radix path go to voracious, which needs up to 100 MB more
        // without a way to fail: 50 MB of headroom must be an error here, not an abort inside it.
        let keys: Vec<u64> = bits(N / 2, Pattern::Random, 9);
        let mut k = keys.clone();
        match with_headroom(50 * MB, || gpusort_cpu::sort_keys_on(&mut k, Order::Ascending, Isa::Portable)) {
            Err(_) if k == keys => {}
            r => failures.push(format!("25M u64 keys, radix path: {r:?}, data kept: {}", k == keys)),
        }
        // The vector sort (AVX-512 or AVX2 machines) needs no memory: under the same limit it
        // sorts them in place. Asked for by name: with many cores `Sorter::cpu()` prefers the
        // radix path at this size (32 cores of a 2-GPU host did), which needs memory.
        let isa = gpusort_cpu::simd::Isa::detected();
        if isa != Isa::Portable {
            let sorted = with_headroom(50 * MB, || gpusort_cpu::sort_keys_on(&mut k, Order::Ascending, isa))
                .map_err(|e| e.to_string());
            if let Err(e) = sorted.and_then(|()| check::validate_keys(&keys, &k, Order::Ascending)) {
                failures.push(format!("25M u64 keys, vector sort under the limit: {e}"));
            }
            k.copy_from_slice(&keys);
        }
        // And with the limit lifted the same process sorts them.
        let sorted = Sorter::cpu().sort_keys(&mut k).map_err(|e| e.to_string());
        if let Err(e) = sorted.and_then(|()| check::validate_keys(&keys, &k, Order::Ascending)) {
            failures.push(format!("25M u64 keys without the limit: {e}"));
        }
        for f in &failures {
            say(f);
        }
        i32::from(!failures.is_empty())
    });
    expect_clean_exit("Kvp and u64 keys", outcome);
}
