//! Backend selection and the behaviour promised without a GPU.

use gpusort::{Algorithm, BackendKind, Kvp, SortError, Sorter};

#[test]
fn auto_never_fails_and_says_why() {
    let s = Sorter::auto();
    let d = s.describe();
    assert!(!d.is_empty());
    if Sorter::cuda().is_err() {
        assert!(d.starts_with("cpu (rayon, "), "{d}");
        assert!(d.contains(": "), "auto on the CPU must say why: {d}");
        assert_eq!(s.backend_for(1 << 30), BackendKind::Cpu);
    } else {
        assert!(d.starts_with("cuda: "), "{d}");
    }
}

#[test]
fn cuda_without_gpu_is_a_clear_error() {
    match Sorter::cuda() {
        Ok(s) => assert_eq!(s.backend_for(0), BackendKind::Cuda),
        Err(e) => {
            assert!(
                matches!(e, SortError::NoDriver | SortError::NoDevice(_) | SortError::Unsupported { .. }),
                "unexpected error kind: {e:?}"
            );
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "skipped: no CUDA device ({e})");
        }
    }
}

#[test]
fn gpu_only_algorithms_on_the_cpu_are_unsupported_and_touch_nothing() {
    let mut v = vec![Kvp::new(3, 0), Kvp::new(1, 1)];
    let before = v.clone();
    for alg in [Algorithm::Bitonic, Algorithm::OddEvenMerge] {
        let e = Sorter::cpu().with_algorithm(alg).sort_kvp(&mut v).expect_err("cpu has no sorting networks");
        assert!(matches!(e, SortError::Unsupported { .. }), "{e:?}");
        assert_eq!(v, before);
    }
}

#[test]
fn crossover_routes_small_inputs_to_the_cpu() {
    let s = Sorter::auto();
    if Sorter::cuda().is_ok() {
        use gpusort::tuning::{gpu_from_items, JobShape};
        for shape in [JobShape::Kvp, JobShape::Keys32, JobShape::Keys64, JobShape::Pairs32, JobShape::Pairs64] {
            let c = gpu_from_items(shape);
            assert_eq!(s.backend_for_shape(shape, c - 1), BackendKind::Cpu, "{shape:?}");
            assert_eq!(s.backend_for_shape(shape, c), BackendKind::Cuda, "{shape:?}");
        }
        assert_eq!(s.clone().with_crossover(10).backend_for_shape(JobShape::Keys64, 10), BackendKind::Cuda);
        assert_eq!(s.clone().with_crossover(10).backend_for(9), BackendKind::Cpu);
        assert_eq!(s.clone().with_algorithm(Algorithm::Bitonic).backend_for(10), BackendKind::Cuda);
    }
    assert_eq!(Sorter::cpu().backend_for(usize::MAX), BackendKind::Cpu);
}

#[test]
fn sorter_is_clone_send_sync() {
    fn assert_traits<T: Clone + Send + Sync + 'static>() {}
    assert_traits::<Sorter>();
    let s = Sorter::auto();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let s = s.clone();
            std::thread::spawn(move || {
                let mut v: Vec<Kvp> = (0..50_000u32).map(|i| Kvp::new(i.wrapping_mul(2654435761) ^ t, i)).collect();
                s.sort_kvp(&mut v).unwrap();
                assert!(v.windows(2).all(|w| w[0].key <= w[1].key));
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
