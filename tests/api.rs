//! Backend selection and the behaviour promised without a GPU.

use gpusort::{check, Algorithm, BackendKind, Kvp, Order, SortError, Sorter};

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
        // 8-bit keys alone stay on the CPU at every size (its counting sort keeps up with the bus).
        assert_eq!(s.backend_for_shape(JobShape::Keys8, 1 << 40), BackendKind::Cpu);
        assert_eq!(s.clone().with_crossover(10).backend_for_shape(JobShape::Keys8, 10), BackendKind::Cuda);
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

#[test]
fn lengths_0_and_1_succeed_with_every_algorithm_on_every_sorter() {
    let algorithms = [Algorithm::Auto, Algorithm::Radix, Algorithm::Bitonic, Algorithm::OddEvenMerge];
    for (name, sorter) in [("cpu", Sorter::cpu()), ("auto", Sorter::auto())] {
        for alg in algorithms {
            let s = sorter.clone().with_algorithm(alg);
            let what = format!("{name} {alg:?}");
            for n in [0usize, 1] {
                let mut kvp: Vec<Kvp> = (0..n as u32).map(|i| Kvp::new(7, i)).collect();
                s.sort_kvp(&mut kvp).unwrap_or_else(|e| panic!("{what} kvp len {n}: {e}"));
                assert_eq!(kvp, (0..n as u32).map(|i| Kvp::new(7, i)).collect::<Vec<_>>(), "{what}");
                let mut keys = vec![u64::MAX; n];
                s.sort_keys(&mut keys).unwrap_or_else(|e| panic!("{what} u64 keys len {n}: {e}"));
                assert_eq!(keys, vec![u64::MAX; n], "{what}");
                let mut fkeys = vec![-0.0f32; n];
                s.sort_keys(&mut fkeys).unwrap_or_else(|e| panic!("{what} f32 keys len {n}: {e}"));
                assert!(fkeys.iter().all(|k| k.to_bits() == (-0.0f32).to_bits()), "{what}");
                let (mut k, mut v) = (vec![-5i32; n], vec![9u32; n]);
                s.sort_pairs(&mut k, &mut v).unwrap_or_else(|e| panic!("{what} i32 pairs len {n}: {e}"));
                assert_eq!((k, v), (vec![-5i32; n], vec![9u32; n]), "{what}");
            }
            // Where there is work, `cpu()` refuses a GPU-only algorithm; `auto()` sorts, on the GPU
            // or with the CPU's stable sort.
            let mut two = vec![Kvp::new(2, 0), Kvp::new(1, 1)];
            let r = s.sort_kvp(&mut two);
            if alg.is_gpu_only() && name == "cpu" {
                assert!(matches!(r, Err(SortError::Unsupported { .. })), "{what}: {r:?}");
            } else {
                r.unwrap_or_else(|e| panic!("{what} len 2: {e}"));
                assert_eq!(two, vec![Kvp::new(1, 1), Kvp::new(2, 0)], "{what}");
            }
        }
    }
}

#[test]
fn auto_without_a_gpu_sorts_network_algorithms_stably_on_the_cpu() {
    let input: Vec<Kvp> = (0..100_000u32).map(|i| Kvp::new(i.wrapping_mul(2654435761) % 1000, i)).collect();
    let mut stable = input.clone();
    Sorter::cpu().sort_kvp(&mut stable).unwrap();
    for alg in [Algorithm::Bitonic, Algorithm::OddEvenMerge] {
        for order in [Order::Ascending, Order::Descending] {
            let s = Sorter::auto().with_algorithm(alg).with_order(order);
            let mut v = input.clone();
            s.sort_kvp(&mut v).unwrap_or_else(|e| panic!("auto {alg:?} {order:?}: {e}"));
            // A network's result is ordered and a permutation; on the CPU it is also the stable one.
            check::validate(&input, &v, order, false).unwrap_or_else(|e| panic!("{alg:?} {order:?}: {e}"));
            if s.backend_for(v.len()) == BackendKind::Cpu && order == Order::Ascending {
                assert!(v == stable, "auto {alg:?} on the CPU must give the stable result");
            }
            let mut keys: Vec<u64> = input.iter().map(|p| (p.key as u64) << 32 | p.value as u64).collect();
            let r = s.sort_keys(&mut keys);
            if s.backend_for(2) == BackendKind::Cpu {
                r.unwrap_or_else(|e| panic!("auto {alg:?} u64 keys on the CPU: {e}"));
                assert!(check::is_sorted(&keys, order), "auto {alg:?} {order:?} u64 keys");
            }
        }
    }
}

#[test]
fn default_is_auto_and_display_is_describe() {
    let (d, a) = (Sorter::default(), Sorter::auto());
    assert_eq!(d.to_string(), a.describe());
    assert_eq!(format!("{a}"), a.describe());
    assert_eq!((d.algorithm(), d.order(), d.keeps_memory()), (Algorithm::Auto, Order::Ascending, true));
    assert_eq!(d.backend_for(1 << 30), a.backend_for(1 << 30));
}

#[test]
fn with_order_sorts_every_kind_descending() {
    for s in [Sorter::cpu(), Sorter::auto(), Sorter::auto().with_crossover(0)] {
        let s = s.with_order(Order::Descending);
        assert_eq!(s.order(), Order::Descending);
        let mut kvp = vec![Kvp::new(1, 0), Kvp::new(3, 1), Kvp::new(1, 2), Kvp::new(2, 3)];
        s.sort_kvp(&mut kvp).unwrap();
        assert_eq!(kvp, [Kvp::new(3, 1), Kvp::new(2, 3), Kvp::new(1, 0), Kvp::new(1, 2)], "{s}");
        let mut keys = vec![-1.5f32, 2.0, f32::NAN, -0.0];
        s.sort_keys(&mut keys).unwrap();
        assert!(keys[0].is_nan() && keys[1..] == [2.0, -0.0, -1.5], "{s}: {keys:?}");
        let (mut k, mut v) = (vec![5u64, 9, 5], vec![0u32, 1, 2]);
        s.sort_pairs(&mut k, &mut v).unwrap();
        assert_eq!((k, v), (vec![9, 5, 5], vec![1, 0, 2]), "{s}");
        // The order is the sorter's: a sorter made from it sorts ascending again.
        let mut up = vec![3u32, 1, 2];
        s.clone().with_order(Order::Ascending).sort_keys(&mut up).unwrap();
        assert_eq!(up, [1, 2, 3]);
    }
}
