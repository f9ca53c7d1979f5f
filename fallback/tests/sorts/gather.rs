//! `gather` and the huge-page buffers: every destination item is the source item its position
//! names, for item types of odd sizes and alignments, on both the direct path and the streaming
//! one (destinations of 16 MiB and more).

use gpusort_cpu::rng::SplitMix64;
use gpusort_cpu::{gather, HugeVec};

/// A random permutation of 0..n (Fisher-Yates, seeded).
fn permutation(n: usize, seed: u64) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n as u32).collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..n).rev() {
        p.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
    p
}

fn check<T: Copy + Send + Sync + PartialEq + std::fmt::Debug>(make: impl Fn(u64) -> T, n: usize, seed: u64) {
    let src: Vec<T> = (0..n as u64).map(&make).collect();
    let p = permutation(n, seed);
    let mut dst: Vec<T> = (0..n as u64).map(|i| make(i ^ 0x5555)).collect();
    gather(&src, &p, &mut dst);
    if let Some(i) = (0..n).find(|&i| dst[i] != src[p[i] as usize]) {
        panic!("n = {n}: item {i} is {:?}, not source item {} ({:?})", dst[i], p[i], src[p[i] as usize]);
    }
}

#[test]
fn every_item_comes_from_its_position() {
    let sizes = [0, 1, 2, 3, 17, 65535, 65536, 65537, 200_003];
    for (s, &n) in sizes.iter().enumerate() {
        let seed = s as u64;
        check(|i| i as u8, n, seed);
        check(|i| [i as u8, (i >> 8) as u8, (i >> 16) as u8], n, seed);
        check(|i| (i, !i), n, seed);
        check(|i| [i as u128; 3], n, seed);
    }
    // Large enough for the streaming path: 32-byte and 12-byte items past 16 MiB.
    check(|i| [i, i.wrapping_mul(3), !i, i << 7], (1 << 19) + 5, 11);
    check(|i| [i as u32, (i >> 3) as u32, !(i as u32)], (1 << 21) + 7, 12);
    // Items larger than the streaming block take the direct path at any size.
    check(|i| [i; 1200], 20_011, 13);
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn a_position_past_the_source_panics() {
    let src = [1u32, 2, 3];
    let mut dst = [0u32; 2];
    gather(&src, &[0, 3], &mut dst);
}

#[test]
#[should_panic(expected = "one position per destination item")]
fn a_length_mismatch_panics() {
    let mut dst = [0u32; 2];
    gather(&[1u32, 2, 3], &[0, 1, 2], &mut dst);
}

#[test]
fn huge_vec_holds_what_was_written() {
    let n = (3 << 20) / 8 + 5;
    let mut v = HugeVec::<u64>::with_capacity(n).unwrap();
    assert!(v.is_empty());
    for (i, slot) in v.spare_capacity_mut().iter_mut().enumerate() {
        slot.write(i as u64 * 7);
    }
    // SAFETY: every slot was written above.
    unsafe { v.set_len(n) };
    assert_eq!(v.len(), n);
    assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64 * 7));
    assert!(HugeVec::<u64>::with_capacity(usize::MAX / 4).is_err(), "an impossible size is an error");
}
