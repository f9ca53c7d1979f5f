//! GPU tests of the radix sort below the public API: every kernel set called directly, split pairs
//! through `sort_pairs` itself, and the portioned passes at small sizes; every shape is tested
//! through the public API in tests/gpu_radix.rs.

use super::*;
use crate::cpu::Positioned;
use crate::cuda::scratch::Scratch;
use gpusort_cpu::check;

fn device() -> Option<Arc<Gpu>> {
    match super::super::gpu(0) {
        Ok(g) => Some(g),
        Err(e) if std::env::var("GPUSORT_REQUIRE_GPU").as_deref() != Ok("1") => {
            // Past the harness's capture, so the skip shows.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "skipped: no CUDA device ({e})");
            None
        }
        Err(e) => panic!("GPUSORT_REQUIRE_GPU=1 but no CUDA device: {e}"),
    }
}

fn rng(seed: u64) -> impl FnMut() -> u32 {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 16) as u32
    }
}

/// The launches of a pass cover every key, none is empty or over its limits, and the last is
/// no more than a tile per launch shorter than the others.
#[test]
fn portions_cover_the_keys_evenly() {
    let big = [(1usize << 30) - 1, 1 << 30, (1 << 30) + 1, 3 << 29, (1 << 32) + 12345, 1 << 28, (1 << 28) + 1];
    for n in big.into_iter().chain([1, 2, 9503, 9504, 9505, 50_001, 1 << 20]) {
        for tile in [2048, 7616, 9504, 16384] {
            for most in [1, 2, 3, 7061, crate::tuning::RADIX_PORTION_KEYS.div_ceil(tile), usize::MAX] {
                let (tiles, portions) = portions_of(n, tile, most);
                let what = format!("n={n} tile={tile} most={most}: {tiles} tiles x {portions}");
                let all = n.div_ceil(tile);
                assert!(tiles >= 1 && tiles <= most.max(1) && tiles * tile <= SWEEP_MAX_KEYS, "{what}");
                assert!(portions * tiles >= all && (portions - 1) * tiles < all, "{what}");
                let last = all - (portions - 1) * tiles;
                assert!(last + (portions - 1) >= tiles, "{what}: the last launch has {last} tiles");
            }
        }
    }
    // 2^30 u32 keys in the huge set's tiles: four launches, not one and a one-tile remainder.
    assert_eq!(portions_of(1 << 30, 9504, crate::tuning::RADIX_PORTION_KEYS.div_ceil(9504)), (28245, 4));
}

/// Every set's config reads back from the loaded image, and the sets that stage keys as they
/// rank them are the large and huge 32-bit keys sets of the sm_90 and sm_100 code alone
/// (policy_radix.cuh `stage_in_rank`), which is what moves u32 keys' boundary in `radix_sets_u32`.
#[test]
fn image_configs_say_which_sets_stage_as_they_rank() {
    use Variant::*;
    let Some(gpu) = device() else { return };
    let staging_code = matches!(gpu.compute_capability.0, 9 | 10);
    // Every set a sort can choose, and the segmented sets of those that have one.
    let chosen = [KVP_SETS, U32_KEYS, F32_KEYS, U32_PAIRS, F32_PAIRS, U64_KEYS, U64_PAIRS]
        .into_iter()
        .flat_map(|s| [s.mid, s.large, s.huge]);
    for v in chosen.clone().chain(chosen.filter_map(Variant::segmented)) {
        let c = config::config(&gpu, v).unwrap();
        assert_eq!(
            c.stages_in_rank,
            staging_code && matches!(v, U32 | U32Huge),
            "{v:?} on {:?}",
            gpu.compute_capability
        );
        assert!(c.tile > 0 && c.passes > 0, "{v:?}: {c:?}");
    }
    let boundary = crate::tuning::RADIX_MID_U32_KEYS_BELOW_STAGED;
    assert_eq!(U32_KEYS.set_for(boundary - 1, &gpu).unwrap(), U32Mid);
    assert_eq!(U32_KEYS.set_for(boundary, &gpu).unwrap(), if staging_code { U32 } else { U32Mid });
    assert_eq!(U32_KEYS.set_for(crate::tuning::RADIX_MID_KEYS_BELOW, &gpu).unwrap(), U32);
    assert_eq!(U32_KEYS.set_for(crate::tuning::RADIX_HUGE_FROM, &gpu).unwrap(), U32Huge);
    assert_eq!(KVP_SETS.set_for(boundary, &gpu).unwrap(), KvpMid);
}

#[test]
fn split_pairs_match_the_stable_oracle() {
    let Some(gpu) = device() else { return };
    gpu.ctx.bind_to_thread().unwrap();
    let stream = gpu.ctx.new_stream().unwrap();
    let mut r = rng(7);
    let sizes = [0usize, 1, 2, 3, 31, 255, 256, 257, 4095, 4096, 4097, 16383, 16384, 16385, 20000, 65537, 1 << 20];
    for &n in &sizes {
        for (kind, mask) in [("random", u32::MAX), ("few", 0x0300_0007), ("equal", 0)] {
            for order in [Order::Ascending, Order::Descending] {
                let keys: Vec<u32> = (0..n).map(|_| r() & mask).collect();
                let values: Vec<u32> = (0..n as u32).collect();
                let mut dk = stream.clone_htod(&keys).unwrap();
                let mut dv = stream.clone_htod(&values).unwrap();
                sort_pairs(&gpu, &stream, &mut dk, &mut dv, order, Scratch::POOL).unwrap();
                let (ok, ov) = (stream.clone_dtoh(&dk).unwrap(), stream.clone_dtoh(&dv).unwrap());
                stream.synchronize().unwrap();
                let input: Vec<Kvp> = keys.iter().zip(&values).map(|(&k, &v)| Kvp::new(k, v)).collect();
                let output: Vec<Kvp> = ok.iter().zip(&ov).map(|(&k, &v)| Kvp::new(k, v)).collect();
                check::validate(&input, &output, order, true)
                    .unwrap_or_else(|e| panic!("split pairs n={n} {kind} {order:?}: {e}"));
            }
        }
    }
    let mut k = stream.clone_htod(&[1u32, 2, 3]).unwrap();
    let mut v = stream.clone_htod(&[1u32, 2]).unwrap();
    assert!(matches!(
        sort_pairs(&gpu, &stream, &mut k, &mut v, Order::Ascending, Scratch::POOL),
        Err(SortError::InvalidArgument(_))
    ));
}

/// `Kvp`s through kernel set `v` on the device, checked against the stable oracle.
fn kvp_through(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    v: Variant,
    input: &[Kvp],
    order: Order,
    run: Run,
) -> Result<(), String> {
    let mut d = stream.clone_htod(input).unwrap();
    sort::<Kvp, u32>(gpu, stream, v, &mut d, None, order_flags(0, order), run, Scratch::POOL).unwrap();
    let out = stream.clone_dtoh(&d).unwrap();
    stream.synchronize().unwrap();
    check::validate(input, &out, order, true)
}

/// `keys` alone through kernel set `v` on the device, checked against the stable oracle.
fn keys_through<K: RadixKey + gpusort_cpu::SortKey>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    v: Variant,
    keys: &[K],
    order: Order,
    run: Run,
) -> Result<(), String> {
    let mut d = stream.clone_htod(keys).unwrap();
    sort::<K, u32>(gpu, stream, v, &mut d, None, order_flags(K::ORDER_FLAGS, order), run, Scratch::POOL).unwrap();
    let out = stream.clone_dtoh(&d).unwrap();
    stream.synchronize().unwrap();
    check::validate_keys(keys, &out, order)
}

/// Split pairs of `keys` and values `0..n` (their positions) through kernel set `v`, checked
/// as the keys' ordered bits (`bits`, which order as the keys do) with their positions.
fn pairs_through<K: RadixKey + Copy, B: gpusort_cpu::SortKey + Eq + std::hash::Hash>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (v, run): (Variant, Run),
    keys: &[K],
    bits: fn(K) -> B,
    order: Order,
) -> Result<(), String> {
    let values: Vec<u32> = (0..keys.len() as u32).collect();
    let (mut dk, mut dv) = (stream.clone_htod(keys).unwrap(), stream.clone_htod(&values).unwrap());
    sort(gpu, stream, v, &mut dk, Some(&mut dv), order_flags(K::ORDER_FLAGS, order), run, Scratch::POOL).unwrap();
    let (ok, ov) = (stream.clone_dtoh(&dk).unwrap(), stream.clone_dtoh(&dv).unwrap());
    stream.synchronize().unwrap();
    let items = |k: &[K], v: &[u32]| -> Vec<Positioned<B>> {
        k.iter().zip(v).map(|(&k, &at)| Positioned { key: bits(k), at }).collect()
    };
    let (input, output) = (items(keys, &values), items(&ok, &ov));
    check::validate(&input, &output, order, true)
}

/// Every kernel set of `Kvp`, 32-bit keys alone (u32, i32, f32) and split u32 / i32 pairs (with
/// and without the second item buffer) at sizes compute-sanitizer can cover: the sorts pick
/// the huge sets from 128M items only (hours under racecheck), so each set is also called here
/// directly.
#[test]
fn every_set_at_sanitizer_sizes() {
    let Some(gpu) = device() else { return };
    gpu.ctx.bind_to_thread().unwrap();
    let stream = gpu.ctx.new_stream().unwrap();
    let mut r = rng(11);
    let signed = |k: i32| k as u32 ^ 0x8000_0000;
    for n in [50_001usize, 131_073] {
        for sorted in [false, true] {
            let keys: Vec<u32> = (0..n as u32).map(|i| if sorted { i } else { r() }).collect();
            let ints: Vec<i32> = keys.iter().map(|&k| k.wrapping_sub(n as u32 / 2) as i32).collect();
            let floats: Vec<f32> = ints.iter().map(|&k| k as f32 * 0.25).collect();
            let input: Vec<Kvp> = keys.iter().enumerate().map(|(i, &k)| Kvp::new(k, i as u32)).collect();
            for order in [Order::Ascending, Order::Descending] {
                let fail =
                    |v: Variant, what: &str, e: String| panic!("{v:?} {what} n={n} sorted={sorted} {order:?}: {e}");
                for v in [KVP_SETS.mid, KVP_SETS.large, KVP_SETS.huge] {
                    kvp_through(&gpu, &stream, v, &input, order, Run::FULL).unwrap_or_else(|e| fail(v, "Kvp", e));
                }
                for v in [U32_KEYS.mid, U32_KEYS.large, U32_KEYS.huge] {
                    keys_through(&gpu, &stream, v, &keys, order, Run::FULL).unwrap_or_else(|e| fail(v, "u32", e));
                    keys_through(&gpu, &stream, v, &ints, order, Run::FULL).unwrap_or_else(|e| fail(v, "i32", e));
                }
                for v in [F32_KEYS.large, F32_KEYS.huge] {
                    keys_through(&gpu, &stream, v, &floats, order, Run::FULL).unwrap_or_else(|e| fail(v, "f32", e));
                }
                for v in [U32_PAIRS.mid, U32_PAIRS.large, U32_PAIRS.huge] {
                    for second in [true, false] {
                        let how = (v, Run { second_items: second, ..Run::FULL });
                        pairs_through(&gpu, &stream, how, &keys, |k| k, order)
                            .unwrap_or_else(|e| fail(v, &format!("u32 pairs, second items {second}"), e));
                        pairs_through(&gpu, &stream, how, &ints, signed, order)
                            .unwrap_or_else(|e| fail(v, &format!("i32 pairs, second items {second}"), e));
                        // One pass, and three with the one skipped between: where each pass
                        // reads and writes differs with a second item buffer (radix_onesweep.cuh).
                        for mask in [0xff, 0xff00_ffff] {
                            let masked: Vec<u32> = keys.iter().map(|&k| k & mask).collect();
                            pairs_through(&gpu, &stream, how, &masked, |k| k, order).unwrap_or_else(|e| {
                                fail(v, &format!("u32 pairs & {mask:#x}, second items {second}"), e)
                            });
                        }
                    }
                }
            }
        }
    }
}

/// Inputs of more than 2^30 - 1 keys take one sweep launch per portion of each pass, each
/// portion's last tile handing the digits' bases on to the next: that path at a size
/// compute-sanitizer covers, in portions of one, two and three tiles (the last one partial),
/// through every layout's large and huge sets, split u32 pairs with and without the second
/// item buffer, with every pass and with one.
#[test]
fn portions_at_small_sizes() {
    let Some(gpu) = device() else { return };
    gpu.ctx.bind_to_thread().unwrap();
    let stream = gpu.ctx.new_stream().unwrap();
    let mut r = rng(13);
    let n = 50_001usize;
    let keys: Vec<u32> = (0..n).map(|_| r()).collect();
    let input: Vec<Kvp> = keys.iter().enumerate().map(|(i, &k)| Kvp::new(k, i as u32)).collect();
    let wide: Vec<u64> = keys.iter().map(|&k| (u64::from(k) << 32) | u64::from(r())).collect();
    for tiles in [1, 2, 3] {
        let run = Run { portion_tiles: Some(tiles), ..Run::FULL };
        for order in [Order::Ascending, Order::Descending] {
            let fail =
                |v: Variant, what: &str, e: String| panic!("{v:?} {what} in portions of {tiles} tiles {order:?}: {e}");
            for v in [KVP_SETS.large, KVP_SETS.huge] {
                kvp_through(&gpu, &stream, v, &input, order, run).unwrap_or_else(|e| fail(v, "Kvp", e));
            }
            for v in [U32_KEYS.large, U32_KEYS.huge] {
                keys_through(&gpu, &stream, v, &keys, order, run).unwrap_or_else(|e| fail(v, "u32", e));
            }
            keys_through(&gpu, &stream, U64_KEYS.large, &wide, order, run)
                .unwrap_or_else(|e| fail(U64_KEYS.large, "u64", e));
            for v in [U32_PAIRS.large, U32_PAIRS.huge] {
                for second in [true, false] {
                    for mask in [u32::MAX, 0xff00] {
                        let masked: Vec<u32> = keys.iter().map(|&k| k & mask).collect();
                        let how = (v, Run { second_items: second, ..run });
                        pairs_through(&gpu, &stream, how, &masked, |k| k, order)
                            .unwrap_or_else(|e| fail(v, &format!("u32 pairs & {mask:#x}, second items {second}"), e));
                    }
                }
            }
            pairs_through(&gpu, &stream, (U64_PAIRS.large, run), &wide, |k| k, order)
                .unwrap_or_else(|e| fail(U64_PAIRS.large, "u64 pairs", e));
        }
    }
}

/// The argsort sweeps of 16- and 8-bit keys (`argsort_narrow`) in portions of one, two and three
/// tiles and in one launch, into u32 and u64 positions: two passes, one (a byte held constant) and
/// none (all keys equal); the keys unchanged, the positions the stable order's.
#[test]
fn narrow_argsort_in_portions() {
    let Some(gpu) = device() else { return };
    gpu.ctx.bind_to_thread().unwrap();
    let stream = gpu.ctx.new_stream().unwrap();
    let mut r = rng(17);
    let n = 50_001usize;
    let random: Vec<u16> = (0..n).map(|_| r() as u16).collect();
    for tiles in [Some(1), Some(2), Some(3), None] {
        let run = Run { portion_tiles: tiles, ..Run::FULL };
        for order in [Order::Ascending, Order::Descending] {
            for mask in [u16::MAX, 0xff00, 0x00ff, 0] {
                let keys: Vec<u16> = random.iter().map(|&k| k & mask).collect();
                let what = format!("u16 & {mask:#x} in portions of {tiles:?} tiles {order:?}");
                narrow_argsort_case(&gpu, &stream, &keys, order, run, &what);
                let halves: Vec<half::f16> = keys.iter().map(|&k| half::f16::from_bits(k)).collect();
                narrow_argsort_case(&gpu, &stream, &halves, order, run, &format!("f16 {what}"));
            }
            let bytes: Vec<i8> = random.iter().map(|&k| k as i8).collect();
            narrow_argsort_case(&gpu, &stream, &bytes, order, run, &format!("i8 in portions of {tiles:?} {order:?}"));
        }
    }
}

fn narrow_argsort_case<K: RadixKey + gpusort_cpu::SortKey + cudarc::driver::ValidAsZeroBits>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &[K],
    order: Order,
    run: Run,
    what: &str,
) {
    let mut want: Vec<u64> = (0..keys.len() as u64).collect();
    let bits = |i: &u64| keys[*i as usize].to_ordered_bits().into();
    match order {
        Order::Ascending => want.sort_by_key(|i| bits(i)),
        Order::Descending => want.sort_by_key(|i| std::cmp::Reverse(bits(i))),
    }
    let dk = stream.clone_htod(keys).unwrap();
    let mut narrow: CudaSlice<u32> = stream.alloc_zeros(keys.len()).unwrap();
    let mut wide: CudaSlice<u64> = stream.alloc_zeros(keys.len()).unwrap();
    let pool = Scratch::POOL;
    assert!(argsort_narrow_in(gpu, stream, &dk, &mut narrow, order, pool, run).unwrap(), "{what}: not applied");
    assert!(argsort_narrow_in(gpu, stream, &dk, &mut wide, order, pool, run).unwrap(), "{what}: not applied");
    let narrow: Vec<u64> = stream.clone_dtoh(&narrow).unwrap().into_iter().map(u64::from).collect();
    assert!(narrow == want, "{what}: u32 positions differ from the stable order");
    assert!(stream.clone_dtoh(&wide).unwrap() == want, "{what}: u64 positions differ from the stable order");
    let after: Vec<u64> = stream.clone_dtoh(&dk).unwrap().iter().map(|k: &K| k.to_ordered_bits().into()).collect();
    assert!(after.into_iter().eq(keys.iter().map(|k| -> u64 { k.to_ordered_bits().into() })), "{what}: keys changed");
}
