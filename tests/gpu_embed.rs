//! Device-resident sorts and top-k as other GPU programs embed them: every call on scratch the caller lent
//! (exactly the size `device_scratch_bytes` gives, which must suffice; one byte less refused
//! with the data untouched), captured into CUDA graphs and replayed on new inputs, and returning
//! while earlier work still holds the stream. Every result is checked against the CPU backend.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use gpusort::cudarc::driver::sys::{self, CUstreamCaptureMode};
use gpusort::cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};
use gpusort::{bf16, f16, ArgIndex, DeviceCall, Key, Kvp, Order, SortError, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// One case at a time: while a thread captures in global mode, the driver refuses other threads'
/// synchronous copies (these cases' uploads), as it would a program's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}
/// Across the one-tile sort, the mid, large and huge kernel sets and several sweep portions.
const LENGTHS: &[usize] = &[0, 1, 2, 255, 256, 257, 4097, 65537, 300_007, (1 << 20) + 3, 9_000_011];

fn keys_of<K: TestKey>(n: usize, p: Pattern, seed: u64) -> Vec<K> {
    bits(n, p, seed).into_iter().map(K::from_bits).collect()
}

/// Scratch of exactly `bytes` (the driver allocates no empty buffer: one byte then).
fn scratch_of(stream: &Arc<CudaStream>, bytes: usize) -> CudaSlice<u8> {
    stream.alloc_zeros::<u8>(bytes.max(1)).expect("scratch")
}

fn ids<K: TestKey>(v: &[K]) -> Vec<u64> {
    v.iter().map(|k| k.id()).collect()
}

fn keys_case<K: TestKey + DeviceRepr + ValidAsZeroBits>(s: &Sorter, n: usize, p: Pattern, order: Order) {
    let s = s.clone().with_order(order);
    let what = format!("{} keys n={n} {p:?} {order:?}", std::any::type_name::<K>());
    let stream = s.cuda_context().expect("a CUDA sorter").default_stream();
    let keys = keys_of::<K>(n, p, 51);
    let mut want = keys.clone();
    Sorter::cpu().with_order(order).sort_keys(&mut want).expect("CPU sort");
    let need = s.device_scratch_bytes(DeviceCall::Keys(K::TYPE), n).expect("scratch size");
    if n == 0 {
        // The driver allocates no empty buffer to sort; the size asked for is nothing.
        assert_eq!(need, 0, "{what}");
        return;
    }
    let mut dk = stream.clone_htod(&keys).expect("up");
    if need > 0 {
        let mut short = scratch_of(&stream, need - 1);
        let e = s.sort_keys_device_with_scratch(&mut dk, &mut short, &stream).expect_err("one byte short");
        assert!(matches!(e, SortError::InvalidArgument(_)), "{what}: {e}");
        assert_eq!(ids(&stream.clone_dtoh(&dk).expect("down")), ids(&keys), "{what}: a refused sort wrote");
    }
    let mut scratch = scratch_of(&stream, need);
    s.sort_keys_device_with_scratch(&mut dk, &mut scratch, &stream).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(ids(&stream.clone_dtoh(&dk).expect("down")), ids(&want), "{what}");
}

fn pairs_case<K: TestKey + DeviceRepr + ValidAsZeroBits>(s: &Sorter, n: usize, p: Pattern, order: Order) {
    if n == 0 {
        return;
    }
    let s = s.clone().with_order(order);
    let what = format!("{} pairs n={n} {p:?} {order:?}", std::any::type_name::<K>());
    let stream = s.cuda_context().expect("a CUDA sorter").default_stream();
    let keys = keys_of::<K>(n, p, 52);
    let values: Vec<u32> = (0..n as u32).collect();
    let need = s.device_scratch_bytes(DeviceCall::Pairs(K::TYPE), n).expect("scratch size");
    let (mut dk, mut dv) = (stream.clone_htod(&keys).expect("up"), stream.clone_htod(&values).expect("up"));
    let mut scratch = scratch_of(&stream, need);
    s.sort_pairs_device_with_scratch(&mut dk, &mut dv, &mut scratch, &stream).unwrap_or_else(|e| panic!("{what}: {e}"));
    // Values are input positions: the stable result is the CPU's argsort, keys gathered by it.
    let want = Sorter::cpu().with_order(order).argsort(&keys).expect("CPU argsort");
    assert_eq!(stream.clone_dtoh(&dv).expect("down"), want, "{what}: values");
    let sorted: Vec<u64> = want.iter().map(|&i| keys[i as usize].id()).collect();
    assert_eq!(ids(&stream.clone_dtoh(&dk).expect("down")), sorted, "{what}: keys");
}

fn kvp_case(s: &Sorter, n: usize, p: Pattern, order: Order) {
    if n == 0 {
        return;
    }
    let s = s.clone().with_order(order);
    let stream = s.cuda_context().expect("a CUDA sorter").default_stream();
    let data = kvp_input(n, p, 53);
    let mut want = data.clone();
    Sorter::cpu().with_order(order).sort_kvp(&mut want).expect("CPU sort");
    let need = s.device_scratch_bytes(DeviceCall::Kvp, n).expect("scratch size");
    let mut d = stream.clone_htod(&data).expect("up");
    let mut scratch = scratch_of(&stream, need);
    s.sort_kvp_device_with_scratch(&mut d, &mut scratch, &stream).expect("kvp");
    assert!(stream.clone_dtoh(&d).expect("down") == want, "kvp n={n} {p:?} {order:?}");
}

fn argsort_case<K: TestKey + DeviceRepr + ValidAsZeroBits, I: ArgIndex + DeviceRepr + ValidAsZeroBits + Key>(
    s: &Sorter,
    n: usize,
    p: Pattern,
    order: Order,
) {
    if n == 0 {
        return;
    }
    let s = s.clone().with_order(order);
    let what =
        format!("{} -> {} argsort n={n} {p:?} {order:?}", std::any::type_name::<K>(), std::any::type_name::<I>());
    let stream = s.cuda_context().expect("a CUDA sorter").default_stream();
    let keys = keys_of::<K>(n, p, 54);
    let call = DeviceCall::Argsort { keys: K::TYPE, indices: I::TYPE };
    let need = s.device_scratch_bytes(call, n).expect("scratch size");
    let dk = stream.clone_htod(&keys).expect("up");
    let mut out: CudaSlice<I> = stream.alloc_zeros(n).expect("alloc");
    let mut scratch = scratch_of(&stream, need);
    s.argsort_device_with_scratch(&dk, &mut out, &mut scratch, &stream).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got: Vec<u64> = stream.clone_dtoh(&out).expect("down").into_iter().map(|i: I| i.position()).collect();
    let want: Vec<u64> =
        Sorter::cpu().with_order(order).argsort(&keys).expect("CPU").into_iter().map(u64::from).collect();
    assert!(got == want, "{what}: not the CPU's permutation");
}

/// The `k` first keys into the caller's buffers, exactly the first `k` of the CPU's stable argsort.
fn top_k_case<K: TestKey + DeviceRepr + ValidAsZeroBits>(s: &Sorter, n: usize, k: usize, p: Pattern, order: Order) {
    if k > n || n == 0 {
        return;
    }
    let s = s.clone().with_order(order);
    let what = format!("top {k} of {} keys n={n} {p:?} {order:?}", std::any::type_name::<K>());
    let stream = s.cuda_context().expect("a CUDA sorter").default_stream();
    let keys = keys_of::<K>(n, p, 55);
    let need = s.device_scratch_bytes(DeviceCall::TopK { keys: K::TYPE, k }, n).expect("scratch size");
    if k == 0 {
        assert_eq!(need, 0, "{what}");
        return;
    }
    let dk = stream.clone_htod(&keys).expect("up");
    let mut out_keys = stream.alloc_zeros::<K>(k).expect("alloc");
    let mut out_at = stream.alloc_zeros::<u64>(k).expect("alloc");
    if need > 0 {
        let mut short = scratch_of(&stream, need - 1);
        let e = s.top_k_device_with_scratch(&dk, &mut out_keys, &mut out_at, &mut short, &stream).expect_err("short");
        assert!(matches!(e, SortError::InvalidArgument(_)), "{what}: {e}");
        assert!(stream.clone_dtoh(&out_at).expect("down").iter().all(|&i| i == 0), "{what}: a refused call wrote");
    }
    let mut scratch = scratch_of(&stream, need);
    s.top_k_device_with_scratch(&dk, &mut out_keys, &mut out_at, &mut scratch, &stream)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let perm = Sorter::cpu().with_order(order).argsort(&keys).expect("CPU");
    let want_at: Vec<u64> = perm[..k].iter().map(|&i| u64::from(i)).collect();
    let want_keys: Vec<u64> = perm[..k].iter().map(|&i| keys[i as usize].id()).collect();
    assert!(stream.clone_dtoh(&out_at).expect("down") == want_at, "{what}: positions");
    assert!(ids(&stream.clone_dtoh(&out_keys).expect("down")) == want_keys, "{what}: keys");
}

fn calls_on_caller_scratch_match_the_cpu() {
    let _one = serial();
    let Some(s) = cuda_or_skip("calls on caller scratch") else { return };
    for order in ORDERS {
        for &n in LENGTHS {
            for &p in &[Pattern::Random, Pattern::FewDistinct, Pattern::Sorted] {
                keys_case::<u32>(&s, n, p, order);
                keys_case::<f64>(&s, n, p, order);
                pairs_case::<u32>(&s, n, p, order);
                pairs_case::<i64>(&s, n, p, order);
                kvp_case(&s, n, p, order);
                argsort_case::<f32, u64>(&s, n, p, order);
                argsort_case::<u64, u32>(&s, n, p, order);
            }
            keys_case::<i32>(&s, n, Pattern::Extremes, order);
            keys_case::<f32>(&s, n, Pattern::Random, order);
            keys_case::<u16>(&s, n, Pattern::Random, order);
            keys_case::<i8>(&s, n, Pattern::FewDistinct, order);
            pairs_case::<f32>(&s, n, Pattern::Random, order);
            pairs_case::<f16>(&s, n, Pattern::Random, order);
            argsort_case::<bf16, u64>(&s, n, Pattern::FewDistinct, order);
            argsort_case::<i32, u32>(&s, n, Pattern::Random, order);
            for k in [1, 100, n / 3, n] {
                top_k_case::<u32>(&s, n, k, Pattern::FewDistinct, order);
                top_k_case::<f64>(&s, n, k, Pattern::Random, order);
                top_k_case::<i16>(&s, n, k, Pattern::FewDistinct, order);
            }
        }
    }
}

/// Every entry point captured once into a graph (caller scratch, and pool scratch, whose
/// allocations become graph nodes), then replayed on three new inputs written into the same
/// buffers before each launch.
fn capture_and_replay_match_the_cpu() {
    let _one = serial();
    let Some(s) = cuda_or_skip("graph capture") else { return };
    let ctx = s.cuda_context().expect("a CUDA sorter");
    s.prepare().expect("prepare");
    let stream = ctx.new_stream().expect("stream");
    let n = 1_000_003;
    for lent in [true, false] {
        for order in ORDERS {
            let s = s.clone().with_order(order);
            let what = |call: &str| format!("{call} captured, lent scratch {lent}, {order:?}");
            let mut keys = stream.alloc_zeros::<f32>(n).expect("alloc");
            let mut values = stream.alloc_zeros::<u32>(n).expect("alloc");
            let mut pair_keys = stream.alloc_zeros::<u64>(n).expect("alloc");
            let mut kvp = stream.alloc_zeros::<Kvp>(n).expect("alloc");
            let mut arg_keys = stream.alloc_zeros::<i16>(n).expect("alloc");
            let mut out = stream.alloc_zeros::<u64>(n).expect("alloc");
            let top = 1000;
            let mut top_keys = stream.alloc_zeros::<i64>(n).expect("alloc");
            let (mut best, mut best_at) =
                (stream.alloc_zeros::<i64>(top).expect("alloc"), stream.alloc_zeros(top).expect("alloc"));
            let need = [
                DeviceCall::Keys(f32::TYPE),
                DeviceCall::Pairs(u64::TYPE),
                DeviceCall::Kvp,
                DeviceCall::Argsort { keys: i16::TYPE, indices: u64::TYPE },
                DeviceCall::TopK { keys: i64::TYPE, k: top },
            ]
            .map(|c| s.device_scratch_bytes(c, n).expect("size"));
            let mut scratch = need.map(|b| scratch_of(&stream, b));
            stream.synchronize().expect("sync");
            stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL).expect("begin capture");
            let r = (|| -> Result<(), SortError> {
                let [a, b, c, d, e] = &mut scratch;
                if lent {
                    s.sort_keys_device_with_scratch(&mut keys, a, &stream)?;
                    s.sort_pairs_device_with_scratch(&mut pair_keys, &mut values, b, &stream)?;
                    s.sort_kvp_device_with_scratch(&mut kvp, c, &stream)?;
                    s.argsort_device_with_scratch(&arg_keys, &mut out, d, &stream)?;
                    // The pool form returns new buffers, which a graph would have to free.
                    s.top_k_device_with_scratch(&top_keys, &mut best, &mut best_at, e, &stream)
                } else {
                    s.sort_keys_device(&mut keys, &stream)?;
                    s.sort_pairs_device(&mut pair_keys, &mut values, &stream)?;
                    s.sort_kvp_device(&mut kvp, &stream)?;
                    s.argsort_device(&arg_keys, &mut out, &stream)
                }
            })();
            let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0));
            r.unwrap_or_else(|e| panic!("{}: {e}", what("a call")));
            let graph = graph.unwrap_or_else(|e| panic!("{}: {e}", what("end capture"))).expect("a graph");
            for round in 0..3u64 {
                let k: Vec<f32> = keys_of(n, Pattern::Random, 60 + round);
                let pk: Vec<u64> = keys_of(n, Pattern::FewDistinct, 70 + round);
                let kv = kvp_input(n, Pattern::Random, 80 + round);
                let ak: Vec<i16> = keys_of(n, Pattern::Random, 90 + round);
                let tk: Vec<i64> = keys_of(n, Pattern::FewDistinct, 95 + round);
                let v: Vec<u32> = (0..n as u32).collect();
                stream.memcpy_htod(&k, &mut keys).expect("up");
                stream.memcpy_htod(&pk, &mut pair_keys).expect("up");
                stream.memcpy_htod(&v, &mut values).expect("up");
                stream.memcpy_htod(&kv, &mut kvp).expect("up");
                stream.memcpy_htod(&ak, &mut arg_keys).expect("up");
                stream.memcpy_htod(&tk, &mut top_keys).expect("up");
                graph.launch().expect("replay");
                stream.synchronize().expect("sync");
                let cpu = Sorter::cpu().with_order(order);
                let mut want_k = k.clone();
                cpu.sort_keys(&mut want_k).expect("cpu");
                assert_eq!(ids(&stream.clone_dtoh(&keys).expect("down")), ids(&want_k), "{}", what("keys"));
                let perm = cpu.argsort(&pk).expect("cpu");
                assert_eq!(stream.clone_dtoh(&values).expect("down"), perm, "{}", what("pairs"));
                let mut want_kv = kv.clone();
                cpu.sort_kvp(&mut want_kv).expect("cpu");
                assert!(stream.clone_dtoh(&kvp).expect("down") == want_kv, "{}", what("kvp"));
                let want_a: Vec<u64> = cpu.argsort(&ak).expect("cpu").into_iter().map(u64::from).collect();
                assert!(stream.clone_dtoh(&out).expect("down") == want_a, "{}", what("argsort"));
                if lent {
                    let perm = cpu.argsort(&tk).expect("cpu");
                    let want_at: Vec<u64> = perm[..top].iter().map(|&i| u64::from(i)).collect();
                    let want_best: Vec<i64> = perm[..top].iter().map(|&i| tk[i as usize]).collect();
                    assert!(stream.clone_dtoh(&best_at).expect("down") == want_at, "{}", what("top-k positions"));
                    assert!(stream.clone_dtoh(&best).expect("down") == want_best, "{}", what("top-k keys"));
                }
            }
        }
    }
}

/// The calls queue their work behind what already holds the stream and return: a host function
/// queued first blocks the stream until this test releases it, after the calls returned.
fn calls_return_while_the_stream_is_busy() {
    let _one = serial();
    let Some(s) = cuda_or_skip("calls on a busy stream") else { return };
    let ctx = s.cuda_context().expect("a CUDA sorter");
    s.prepare().expect("prepare");
    let stream = ctx.new_stream().expect("stream");
    let n = 2_000_003;
    let keys: Vec<u32> = keys_of(n, Pattern::Random, 61);
    let mut dk = stream.clone_htod(&keys).expect("up");
    let mut pool_keys = stream.clone_htod(&keys).expect("up");
    let need = s.device_scratch_bytes(DeviceCall::Keys(u32::TYPE), n).expect("size");
    let mut scratch = scratch_of(&stream, need);
    stream.synchronize().expect("sync");

    let (release, gate) = mpsc::channel::<()>();
    let released = Arc::new(AtomicBool::new(false));
    let gate: Box<mpsc::Receiver<()>> = Box::new(gate);
    extern "C" fn wait_for_release(arg: *mut std::ffi::c_void) {
        // SAFETY: the box below, handed to this one call.
        let gate = unsafe { Box::from_raw(arg.cast::<mpsc::Receiver<()>>()) };
        let _ = gate.recv_timeout(Duration::from_secs(60));
    }
    // SAFETY: a live stream; the argument is the leaked box, taken back by the function.
    unsafe {
        gpusort::cudarc::driver::result::stream::launch_host_function(
            stream.cu_stream(),
            wait_for_release,
            Box::into_raw(gate).cast(),
        )
    }
    .expect("host function");
    let watchdog = {
        let (release, released) = (release.clone(), released.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(20));
            released.store(true, Ordering::SeqCst);
            let _ = release.send(());
        })
    };
    s.sort_keys_device_with_scratch(&mut dk, &mut scratch, &stream).expect("lent");
    s.sort_keys_device(&mut pool_keys, &stream).expect("pool");
    assert!(!released.load(Ordering::SeqCst), "a call waited for the blocked stream");
    release.send(()).expect("release");
    stream.synchronize().expect("sync");
    let mut want = keys.clone();
    want.sort_unstable();
    assert_eq!(stream.clone_dtoh(&dk).expect("down"), want, "lent scratch");
    assert_eq!(stream.clone_dtoh(&pool_keys).expect("down"), want, "pool scratch");
    drop(watchdog);
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu("calls_on_caller_scratch_match_the_cpu", calls_on_caller_scratch_match_the_cpu),
        harness::gpu("capture_and_replay_match_the_cpu", capture_and_replay_match_the_cpu),
        harness::gpu("calls_return_while_the_stream_is_busy", calls_return_while_the_stream_is_busy),
    ])
}
