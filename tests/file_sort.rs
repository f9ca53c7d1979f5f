//! `Sorter::sort_file`: files of records come out exactly as a stable sort of their records by
//! the key field (std's `sort_by`, with the key compared as its type or as bytes), for every key
//! type in both byte orders and both orders, with budgets that force many runs and several merge
//! passes; and failures (a full disk, a cancelled sort, a partial record) leave the input, the
//! output's name and the folders as they were.

mod common;

use std::cmp::Ordering;
use std::ops::ControlFlow;

use common::dir::Dir;
use common::*;
use gpusort::{bf16, f16, FileKey, KeyType, Order, Phase, RecordLayout, SortError, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];
/// The smallest budget the sort takes (records up to 8 KiB): runs of a few thousand records.
const SMALL_BUDGET: usize = 512 << 10;

/// `n` records of `size` bytes: random bytes, the key field drawn from few distinct values in a
/// third of the cases (so that ties, and stability, matter), and the record's number in its last
/// four bytes when it has room beside the key.
fn records(n: usize, layout: &RecordLayout, seed: u64) -> Vec<u8> {
    let (size, off, len) = (layout.record_size(), layout.key_offset(), layout.key().len());
    let mut rng = Rng::new(seed);
    let few: Vec<Vec<u8>> = (0..5).map(|_| (0..len).map(|_| rng.next() as u8).collect()).collect();
    let mut out = vec![0u8; n * size];
    for (i, r) in out.chunks_exact_mut(size).enumerate() {
        r.iter_mut().for_each(|b| *b = rng.next() as u8);
        if rng.next().is_multiple_of(3) {
            r[off..off + len].copy_from_slice(&few[rng.next() as usize % few.len()]);
        }
        if size >= off + len + 4 {
            r[size - 4..].copy_from_slice(&(i as u32).to_le_bytes());
        }
    }
    out
}

/// The key of `record` compared as its type says, independently of gpusort's code.
fn compare(layout: &RecordLayout, a: &[u8], b: &[u8]) -> Ordering {
    let (off, len) = (layout.key_offset(), layout.key().len());
    let (a, b) = (&a[off..off + len], &b[off..off + len]);
    let (t, big) = match layout.key() {
        FileKey::Bytes(_) => return a.cmp(b),
        FileKey::LittleEndian(t) => (t, false),
        FileKey::BigEndian(t) => (t, true),
        _ => unreachable!(),
    };
    macro_rules! num {
        ($ty:ty) => {{
            let read = |x: &[u8]| {
                let bytes: [u8; size_of::<$ty>()] = x.try_into().unwrap();
                if big {
                    <$ty>::from_be_bytes(bytes)
                } else {
                    <$ty>::from_le_bytes(bytes)
                }
            };
            (read(a), read(b))
        }};
    }
    match t {
        KeyType::U8 => {
            let (x, y) = num!(u8);
            x.cmp(&y)
        }
        KeyType::I8 => {
            let (x, y) = num!(i8);
            x.cmp(&y)
        }
        KeyType::U16 => {
            let (x, y) = num!(u16);
            x.cmp(&y)
        }
        KeyType::I16 => {
            let (x, y) = num!(i16);
            x.cmp(&y)
        }
        KeyType::U32 => {
            let (x, y) = num!(u32);
            x.cmp(&y)
        }
        KeyType::I32 => {
            let (x, y) = num!(i32);
            x.cmp(&y)
        }
        KeyType::U64 => {
            let (x, y) = num!(u64);
            x.cmp(&y)
        }
        KeyType::I64 => {
            let (x, y) = num!(i64);
            x.cmp(&y)
        }
        KeyType::F32 => {
            let (x, y) = num!(f32);
            x.total_cmp(&y)
        }
        KeyType::F64 => {
            let (x, y) = num!(f64);
            x.total_cmp(&y)
        }
        KeyType::F16 => {
            let (x, y) = num!(f16);
            x.total_cmp(&y)
        }
        KeyType::BF16 => {
            let (x, y) = num!(bf16);
            x.total_cmp(&y)
        }
        _ => unreachable!("a key type this test does not know"),
    }
}

/// The records stably sorted by key in `order`: the oracle.
fn oracle(data: &[u8], layout: &RecordLayout, order: Order) -> Vec<u8> {
    let mut rows: Vec<&[u8]> = data.chunks_exact(layout.record_size()).collect();
    rows.sort_by(|a, b| match order {
        Order::Ascending => compare(layout, a, b),
        Order::Descending => compare(layout, b, a),
    });
    rows.concat()
}

/// Sorts `n` records through a file and checks the output against the oracle, the input
/// unchanged and nothing left in the folder but the two files.
fn file_case(sorter: &Sorter, layout: &RecordLayout, n: usize, order: Order, what: &str) -> gpusort::FileSortReport {
    let dir = Dir::new(&what.replace([' ', ':', '/', '='], "_"));
    let data = records(n, layout, n as u64 ^ 0x5eed);
    std::fs::write(dir.path("in"), &data).unwrap();
    let s = sorter.clone().with_order(order);
    let report = s.sort_file(dir.path("in"), dir.path("out"), layout).unwrap_or_else(|e| panic!("{what}: {e}"));
    let out = std::fs::read(dir.path("out")).unwrap();
    assert!(out == oracle(&data, layout, order), "{what}: the output is not the stable sort of the input");
    assert!(std::fs::read(dir.path("in")).unwrap() == data, "{what}: the input changed");
    assert_eq!(dir.names(), ["in", "out"], "{what}: files left beside the output");
    assert_eq!(report.records, n as u64, "{what}");
    let check = s.check_file(dir.path("out"), layout).unwrap();
    assert!(check.is_sorted(), "{what}: check_file");
    assert_eq!(check.checksum, s.check_file(dir.path("in"), layout).unwrap().checksum, "{what}: checksums");
    report
}

fn every_key_type(b: &Backend) {
    let small = b.sorter.clone().with_host_memory_limit(SMALL_BUDGET);
    for &t in KeyType::ALL {
        for order in ORDERS {
            for key in [FileKey::LittleEndian(t), FileKey::BigEndian(t)] {
                // The key inside the record, with a payload and the record's number around it.
                let layout = RecordLayout::new(t.size() + 7, 3, key).unwrap();
                for n in [0, 1, 2, 3, 1000, 120_001] {
                    let what = format!("{} {key:?} {order:?} n={n}", b.name);
                    let r = file_case(&small, &layout, n, order, &what);
                    assert!(n < 120_001 || (r.runs > 7 && r.merge_passes >= 2), "{what}: {r:?}");
                }
            }
            let raw = RecordLayout::keys(t);
            file_case(&small, &raw, 100_003, order, &format!("{} raw {t} {order:?}", b.name));
        }
    }
    file_case(&small, &RecordLayout::kvp(), 70_001, Order::Ascending, &format!("{} kvp", b.name));
}

fn byte_string_keys(b: &Backend) {
    let small = b.sorter.clone().with_host_memory_limit(SMALL_BUDGET);
    // The Sort Benchmark's records, then keys narrower and wider than a word, at an offset.
    let shapes = [(100, 0, 10), (12, 2, 3), (16, 0, 8), (24, 4, 16), (40, 1, 17), (9, 0, 9)];
    for (size, off, len) in shapes {
        let layout = RecordLayout::new(size, off, FileKey::Bytes(len)).unwrap();
        for order in ORDERS {
            for n in [0, 1, 5, 4099, 40_007] {
                file_case(&small, &layout, n, order, &format!("{} bytes {size}/{off}:{len} {order:?} n={n}", b.name));
            }
        }
    }
    // A budget that holds the file: one run, written straight to the output.
    let layout = RecordLayout::new(100, 0, FileKey::Bytes(10)).unwrap();
    let what = format!("{} one run", b.name);
    let r = file_case(&b.sorter.clone().with_host_memory_limit(64 << 20), &layout, 30_011, Order::Ascending, &what);
    assert_eq!((r.runs, r.merge_passes), (1, 0), "{r:?}");
}

fn in_place_and_over_an_existing_output(b: &Backend) {
    let dir = Dir::new(&format!("inplace-{}", b.name));
    let layout = RecordLayout::new(16, 0, FileKey::LittleEndian(KeyType::U64)).unwrap();
    let data = records(50_000, &layout, 7);
    std::fs::write(dir.path("f"), &data).unwrap();
    let s = b.sorter.clone().with_host_memory_limit(SMALL_BUDGET);
    s.sort_file(dir.path("f"), dir.path("f"), &layout).unwrap();
    assert!(std::fs::read(dir.path("f")).unwrap() == oracle(&data, &layout, Order::Ascending));
    std::fs::write(dir.path("g"), b"old").unwrap();
    s.sort_file(dir.path("f"), dir.path("g"), &layout).unwrap();
    assert!(std::fs::read(dir.path("g")).unwrap() == oracle(&data, &layout, Order::Ascending));
    assert_eq!(dir.names(), ["f", "g"]);
}

/// A failed sort leaves the input, the old output and the folder as they were.
fn assert_untouched(dir: &Dir, data: &[u8], e: &SortError, what: &str) {
    assert!(std::fs::read(dir.path("in")).unwrap() == data, "{what}: the input changed");
    assert_eq!(std::fs::read(dir.path("out")).unwrap(), b"old output", "{what}: the output was replaced");
    assert_eq!(dir.names(), ["in", "out"], "{what} ({e}): files left behind");
}

fn failures_leave_things_as_they_were() {
    let layout = RecordLayout::new(100, 0, FileKey::Bytes(10)).unwrap();
    let data = records(20_000, &layout, 11);
    let s = Sorter::cpu().with_host_memory_limit(SMALL_BUDGET);
    let dir = Dir::new("failures");
    std::fs::write(dir.path("in"), &data).unwrap();
    std::fs::write(dir.path("out"), b"old output").unwrap();

    // A full disk: in the run phase (the scratch folder elsewhere), then in the merge.
    let scratch = Dir::new("failures-scratch");
    gpusort::file_faults::fill_disk_after(&scratch.0, 100_000);
    let e = s.clone().with_temp_dir(&scratch.0).sort_file(dir.path("in"), dir.path("out"), &layout).unwrap_err();
    gpusort::file_faults::clear(&scratch.0);
    assert!(matches!(&e, SortError::Io { source, .. } if source.raw_os_error() == Some(28)), "{e}");
    assert!(scratch.names().is_empty(), "runs left in the scratch folder: {:?}", scratch.names());
    assert_untouched(&dir, &data, &e, "full disk, runs");
    gpusort::file_faults::fill_disk_after(&dir.0, 1_500_000);
    let e = s.sort_file(dir.path("in"), dir.path("out"), &layout).unwrap_err();
    gpusort::file_faults::clear(&dir.0);
    assert!(matches!(&e, SortError::Io { source, .. } if source.raw_os_error() == Some(28)), "{e}");
    assert_untouched(&dir, &data, &e, "full disk, merge");

    // Cancelled from the progress callback, in each phase.
    for stop_in in ["runs", "merge"] {
        let mut seen = Vec::new();
        let e = s
            .sort_file_with_progress(dir.path("in"), dir.path("out"), &layout, &mut |p| {
                seen.push(p.phase);
                match (stop_in, p.phase) {
                    ("runs", Phase::Runs) if p.done > 500_000 => ControlFlow::Break(()),
                    ("merge", Phase::Merge { pass: 2 }) => ControlFlow::Break(()),
                    _ => ControlFlow::Continue(()),
                }
            })
            .unwrap_err();
        assert!(matches!(e, SortError::Cancelled), "{e}");
        assert!(stop_in == "runs" || seen.contains(&Phase::Merge { pass: 1 }), "{seen:?}");
        assert_untouched(&dir, &data, &e, stop_in);
    }

    // Not a whole number of records.
    std::fs::write(dir.path("in"), &data[..data.len() - 1]).unwrap();
    let e = s.sort_file(dir.path("in"), dir.path("out"), &layout).unwrap_err();
    assert!(matches!(&e, SortError::InvalidArgument(m) if m.contains("whole number")), "{e}");
    assert!(s.check_file(dir.path("in"), &layout).is_err());
    std::fs::write(dir.path("in"), &data).unwrap();
    assert_untouched(&dir, &data, &e, "partial record");

    // Float keys in another order than total, a budget too small, a missing input.
    let floats = RecordLayout::keys(KeyType::F32);
    let e =
        s.clone().with_float_order(gpusort::FloatOrder::NanLast).sort_file(dir.path("in"), dir.path("out"), &floats);
    assert!(matches!(e, Err(SortError::InvalidArgument(_))), "{e:?}");
    let e = Sorter::cpu().with_host_memory_limit(1000).sort_file(dir.path("in"), dir.path("out"), &layout);
    assert!(matches!(e, Err(SortError::InvalidArgument(_))), "{e:?}");
    let e = s.sort_file(dir.path("missing"), dir.path("out"), &layout).unwrap_err();
    assert!(matches!(&e, SortError::Io { .. }) && e.to_string().contains("missing"), "{e}");
    assert_untouched(&dir, &data, &e, "bad arguments");
}

/// `sort_mapped` over a file mapped with `mmap(MAP_SHARED)`: the file itself ends sorted.
fn mapped_file_sorts_in_place(b: &Backend) {
    use std::os::fd::AsRawFd;
    let dir = Dir::new(&format!("mapped-{}", b.name));
    let layout = RecordLayout::new(100, 0, FileKey::Bytes(10)).unwrap();
    for (n, budget) in [(40_000, SMALL_BUDGET), (3000, 64 << 20), (1, SMALL_BUDGET)] {
        let data = records(n, &layout, 5);
        std::fs::write(dir.path("m"), &data).unwrap();
        let file = std::fs::OpenOptions::new().read(true).write(true).open(dir.path("m")).unwrap();
        // SAFETY: a fresh shared mapping of the whole file, unmapped below; nothing else maps it.
        let bytes = unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                data.len(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            std::slice::from_raw_parts_mut(p.cast::<u8>(), data.len())
        };
        let s = b.sorter.clone().with_host_memory_limit(budget).with_temp_dir(&dir.0);
        let r = s.sort_mapped(bytes, &layout).unwrap();
        // SAFETY: the mapping made above, no longer used.
        unsafe { libc::munmap(bytes.as_mut_ptr().cast(), data.len()) };
        assert!(std::fs::read(dir.path("m")).unwrap() == oracle(&data, &layout, Order::Ascending), "n={n} {r:?}");
        assert_eq!(dir.names(), ["m"], "n={n}");
    }
}

fn mapped_sorts_keep_their_promises() {
    let layout = RecordLayout::new(24, 4, FileKey::LittleEndian(KeyType::F64)).unwrap();
    let data = records(60_000, &layout, 9);
    let dir = Dir::new("mapped-promises");
    let s = Sorter::cpu().with_host_memory_limit(SMALL_BUDGET).with_temp_dir(&dir.0).with_order(Order::Descending);
    // Stopped in the run phase: untouched. Asked to stop in the last merge: it finishes.
    let mut v = data.clone();
    let e = s.sort_mapped_with_progress(&mut v, &layout, &mut |p| match p.phase {
        Phase::Runs if p.done > 300_000 => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    });
    assert!(matches!(e, Err(SortError::Cancelled)), "{e:?}");
    assert!(v == data && dir.names().is_empty());
    let mut passes = 0;
    let r = s
        .sort_mapped_with_progress(&mut v, &layout, &mut |p| {
            passes = p.merge_passes;
            match p.phase {
                Phase::Merge { pass } if pass == p.merge_passes => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        })
        .unwrap();
    assert!(v == oracle(&data, &layout, Order::Descending), "{r:?}");
    assert!(passes >= 2 && dir.names().is_empty());
    // A full scratch disk: untouched.
    let mut v = data.clone();
    gpusort::file_faults::fill_disk_after(&dir.0, 50_000);
    let e = s.sort_mapped(&mut v, &layout);
    gpusort::file_faults::clear(&dir.0);
    assert!(matches!(e, Err(SortError::Io { .. })), "{e:?}");
    assert!(v == data && dir.names().is_empty());
    assert!(matches!(s.sort_mapped(&mut v[..25], &layout), Err(SortError::InvalidArgument(_))));
}

fn leftovers_of_killed_sorts_are_removed() {
    let dir = Dir::new("orphans");
    let layout = RecordLayout::keys(KeyType::U32);
    std::fs::write(dir.path("in"), records(1000, &layout, 3)).unwrap();
    // A process id that is no longer running, and ours (a sort running now: kept).
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let ours = std::process::id();
    for name in [format!("gpusort-runs-{dead}-1"), format!("gpusort-runs-{ours}-1")] {
        std::fs::create_dir(dir.path(&name)).unwrap();
        std::fs::write(dir.path(&name).join("run-000000"), b"run").unwrap();
    }
    std::fs::write(dir.path(&format!(".out.gpusort-partial-{dead}")), b"partial").unwrap();
    Sorter::cpu().sort_file(dir.path("in"), dir.path("out"), &layout).unwrap();
    let mut expected = vec![format!("gpusort-runs-{ours}-1"), "in".into(), "out".into()];
    expected.sort();
    assert_eq!(dir.names(), expected);
}

fn check_file_finds_the_first_record_out_of_order() {
    let dir = Dir::new("check");
    let layout = RecordLayout::new(8, 4, FileKey::BigEndian(KeyType::I32)).unwrap();
    let keys = [-5i32, -1, 0, 7, 3, 9];
    let data: Vec<u8> = keys.iter().flat_map(|k| [[1u8, 2, 3, 4], k.to_be_bytes()].concat()).collect();
    std::fs::write(dir.path("f"), &data).unwrap();
    let c = Sorter::cpu().check_file(dir.path("f"), &layout).unwrap();
    assert_eq!((c.records, c.first_unsorted), (6, Some(4)));
    let c = Sorter::cpu().with_order(Order::Descending).check_file(dir.path("f"), &layout).unwrap();
    assert_eq!(c.first_unsorted, Some(1));
    std::fs::write(dir.path("f"), &data[..32]).unwrap();
    assert!(Sorter::cpu().check_file(dir.path("f"), &layout).unwrap().is_sorted());
}

fn main() -> std::process::ExitCode {
    type PerBackend = (&'static str, fn(&Backend));
    let per_backend: [PerBackend; 4] = [
        ("mapped_file_sorts_in_place", mapped_file_sorts_in_place),
        ("every_key_type", every_key_type),
        ("byte_string_keys", byte_string_keys),
        ("in_place_and_over_an_existing_output", in_place_and_over_an_existing_output),
    ];
    let mut trials = Vec::new();
    for (name, f) in per_backend {
        trials.push(harness::cpu(&format!("{name}::cpu"), move || f(&cpu_backend())));
        trials.push(harness::gpu(&format!("{name}::cuda"), move || f(&cuda_backend())));
    }
    trials.push(harness::cpu("failures_leave_things_as_they_were", failures_leave_things_as_they_were));
    trials.push(harness::cpu("mapped_sorts_keep_their_promises", mapped_sorts_keep_their_promises));
    trials.push(harness::cpu("leftovers_of_killed_sorts_are_removed", leftovers_of_killed_sorts_are_removed));
    trials.push(harness::cpu(
        "check_file_finds_the_first_record_out_of_order",
        check_file_finds_the_first_record_out_of_order,
    ));
    harness::run(trials)
}
