//! `Sorter::auto()` under each `GPUSORT_BACKEND` value, through the function that takes the
//! parsed value (the environment itself is read once per process, see `config.rs`).

use super::*;
use crate::Kvp;

#[test]
fn a_refused_backend_is_named_and_every_sort_fails_untouched() {
    let why = "GPUSORT_BACKEND=gpuu is not one of auto, cpu, cuda".to_string();
    let s = Sorter::auto_from(&Err(why.clone())).with_order(Order::Descending);
    assert!(s.describe().contains("GPUSORT_BACKEND=gpuu"), "{s}");
    let mut kvp = vec![Kvp::new(1, 0), Kvp::new(2, 1)];
    let mut keys = vec![1u64, 2];
    let (mut k, mut v) = (vec![1i32, 2], vec![0u32, 1]);
    let mut empty: Vec<f32> = Vec::new();
    for r in [s.sort_kvp(&mut kvp), s.sort_keys(&mut keys), s.sort_pairs(&mut k, &mut v), s.sort_keys(&mut empty)] {
        match r {
            Err(SortError::Config(m)) => assert_eq!(m, why),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((kvp[0], keys, k, v), (Kvp::new(1, 0), vec![1, 2], vec![1, 2], vec![0, 1]));
}

#[test]
fn forced_cpu_is_an_auto_sorter_on_the_cpu() {
    let s = Sorter::auto_from(&Ok(ForcedBackend::Cpu));
    assert!(s.describe().contains("GPUSORT_BACKEND=cpu"), "{s}");
    assert_eq!(s.backend_for(usize::MAX), BackendKind::Cpu);
    // Still `auto()`: a sorting network it cannot run becomes the stable sort.
    let mut v = vec![3u32, 1, 2];
    s.with_algorithm(Algorithm::Bitonic).sort_keys(&mut v).unwrap();
    assert_eq!(v, [1, 2, 3]);
}

#[test]
fn forced_cuda_without_a_gpu_says_why_and_sorts_on_the_cpu() {
    let s = Sorter::auto_from(&Ok(ForcedBackend::Cuda));
    if s.gpu.is_none() {
        assert!(s.describe().contains("GPUSORT_BACKEND=cuda, but"), "{s}");
        let mut v = vec![3u32, 1, 2];
        s.sort_keys(&mut v).unwrap();
        assert_eq!(v, [1, 2, 3]);
    } else {
        assert_eq!(s.backend_for(1), BackendKind::Cuda);
    }
}
