//! Tests of `gpusort_sort_file`, `gpusort_sort_file_with_progress` and `gpusort_check_file`:
//! sorted files against std's stable sort, and each refusal and failure through the C types.

use super::*;
use crate::args::key_types::{GPUSORT_KEY_F32, GPUSORT_KEY_I32, GPUSORT_KEY_U64};
use crate::args::{GPUSORT_ASCENDING, GPUSORT_DESCENDING, GPUSORT_FLOAT_ORDER_NAN_LAST};
use crate::failure::last_error;
use crate::sorter::{gpusort_sorter_free, gpusort_sorter_with_float_order};
use gpusort_status::{GPUSORT_CANCELLED, GPUSORT_INVALID_ARGUMENT, GPUSORT_IO_ERROR, GPUSORT_OK};
use std::ffi::CString;
use std::ptr::{null, null_mut};

/// A folder of its own per test, removed afterwards.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("gpusort-ffi-file-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
    fn c(&self, name: &str) -> CString {
        use std::os::unix::ffi::OsStrExt;
        CString::new(self.0.join(name).as_os_str().as_bytes()).unwrap()
    }
    fn read(&self, name: &str) -> Option<Vec<u8>> {
        std::fs::read(self.0.join(name)).ok()
    }
    fn write(&self, name: &str, bytes: &[u8]) {
        std::fs::write(self.0.join(name), bytes).unwrap();
    }
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const GRAY: gpusort_file_layout = gpusort_file_layout {
    record_size: 100,
    key_offset: 0,
    key_kind: GPUSORT_FILE_KEY_BYTES,
    key_type: 0,
    key_bytes: 10,
};

/// `n` 100-byte records: a 10-byte key from few values in a third of them (ties), then the
/// record's number.
fn gray_records(n: usize) -> Vec<u8> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut out = vec![0u8; n * 100];
    for (i, r) in out.chunks_exact_mut(100).enumerate() {
        r.iter_mut().for_each(|b| *b = next() as u8);
        if next() % 3 == 0 {
            r[..10].copy_from_slice(&[b'k', b'e', b'y', (next() % 4) as u8, 0, 0, 0, 0, 0, 0]);
        }
        r[96..].copy_from_slice(&(i as u32).to_le_bytes());
    }
    out
}

fn stable_by_key(data: &[u8], descending: bool) -> Vec<u8> {
    let mut rows: Vec<&[u8]> = data.chunks_exact(100).collect();
    match descending {
        false => rows.sort_by(|a, b| a[..10].cmp(&b[..10])),
        true => rows.sort_by(|a, b| b[..10].cmp(&a[..10])),
    }
    rows.concat()
}

fn sort(
    dir: &Dir,
    layout: *const gpusort_file_layout,
    order: u32,
    limit: u64,
    r: *mut gpusort_file_report,
) -> gpusort_status {
    let (i, o) = (dir.c("in"), dir.c("out"));
    unsafe { gpusort_sort_file(null(), i.as_ptr(), o.as_ptr(), layout, order, limit, null(), r) }
}

fn check(dir: &Dir, name: &str, layout: &gpusort_file_layout, order: u32) -> gpusort_file_check {
    let mut c = gpusort_file_check::default();
    let p = dir.c(name);
    assert_eq!(unsafe { gpusort_check_file(null(), p.as_ptr(), layout, order, &mut c) }, GPUSORT_OK);
    c
}

#[test]
fn records_sort_stably_in_many_runs_in_both_orders() {
    let dir = Dir::new("gray");
    let data = gray_records(20_000);
    dir.write("in", &data);
    for (order, descending) in [(GPUSORT_ASCENDING, false), (GPUSORT_DESCENDING, true)] {
        let mut r = gpusort_file_report::default();
        assert_eq!(sort(&dir, &GRAY, order, 512 << 10, &mut r), GPUSORT_OK, "{}", last_error());
        assert!(dir.read("out").unwrap() == stable_by_key(&data, descending), "order {order}");
        assert_eq!((r.records, r.memory_budget), (20_000, 512 << 10));
        assert!(r.runs > 2 && r.merge_passes >= 1 && r.run_phase_ns > 0, "{r:?}");
        assert!(r.backend == GPUSORT_BACKEND_CPU || r.backend == GPUSORT_BACKEND_CUDA);
        let (out, input) = (check(&dir, "out", &GRAY, order), check(&dir, "in", &GRAY, order));
        assert_eq!((out.sorted, out.first_unsorted, out.records), (1, 20_000, 20_000));
        assert_eq!(out.checksum, input.checksum);
        assert_eq!(input.sorted, 0);
        assert!(input.first_unsorted < 20_000);
        assert_eq!(dir.names(), ["in", "out"]);
    }
    // In place, with the default budget (one run) and no report.
    assert_eq!(
        unsafe {
            gpusort_sort_file(null(), dir.c("in").as_ptr(), dir.c("in").as_ptr(), &GRAY, 0, 0, null(), null_mut())
        },
        GPUSORT_OK
    );
    assert!(dir.read("in").unwrap() == stable_by_key(&data, false));
}

#[test]
fn number_keys_in_either_byte_order_and_a_scratch_folder_elsewhere() {
    let (dir, scratch) = (Dir::new("numbers"), Dir::new("numbers-scratch"));
    // 12-byte records: a tag, an i32 key at offset 4, 4 bytes of payload.
    let keys: Vec<i32> = (0..30_000).map(|i: i32| i.wrapping_mul(-1_640_531_535) >> 7).collect();
    for (kind, be) in [(GPUSORT_FILE_KEY_LE, false), (GPUSORT_FILE_KEY_BE, true)] {
        let layout = gpusort_file_layout {
            record_size: 12,
            key_offset: 4,
            key_kind: kind,
            key_type: GPUSORT_KEY_I32,
            key_bytes: 0,
        };
        let data: Vec<u8> = keys
            .iter()
            .enumerate()
            .flat_map(|(i, k)| {
                [[7u8; 4], if be { k.to_be_bytes() } else { k.to_le_bytes() }, (i as u32).to_le_bytes()].concat()
            })
            .collect();
        dir.write("in", &data);
        let (i, o, t) = (dir.c("in"), dir.c("out"), scratch.c(""));
        let st =
            unsafe { gpusort_sort_file(null(), i.as_ptr(), o.as_ptr(), &layout, 0, 512 << 10, t.as_ptr(), null_mut()) };
        assert_eq!(st, GPUSORT_OK, "{}", last_error());
        let out = dir.read("out").unwrap();
        let mut want: Vec<(i32, u32)> = keys.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect();
        want.sort();
        let got: Vec<(i32, u32)> = out
            .chunks_exact(12)
            .map(|r| {
                let k = r[4..8].try_into().unwrap();
                (
                    if be { i32::from_be_bytes(k) } else { i32::from_le_bytes(k) },
                    u32::from_le_bytes(r[8..].try_into().unwrap()),
                )
            })
            .collect();
        assert!(got == want, "kind {kind}");
        assert!(scratch.names().is_empty(), "{:?}", scratch.names());
    }
}

#[test]
fn bad_layouts_and_arguments_are_refused_before_any_file_is_touched() {
    let dir = Dir::new("bad");
    dir.write("in", &gray_records(10));
    let l = |record_size, key_offset, key_kind, key_type, key_bytes| gpusort_file_layout {
        record_size,
        key_offset,
        key_kind,
        key_type,
        key_bytes,
    };
    let cases = [
        (l(100, 0, 3, 0, 10), "layout.key_kind 3"),
        (l(100, 0, GPUSORT_FILE_KEY_LE, 12, 0), "layout.key_type: key type 12"),
        (l(100, 0, GPUSORT_FILE_KEY_BE, GPUSORT_KEY_U64, 4), "layout.key_bytes is 4 but a u64 key has 8 bytes"),
        (l(100, 0, GPUSORT_FILE_KEY_BYTES, 0, 0), "layout.key_bytes is 0"),
        (l(0, 0, GPUSORT_FILE_KEY_BYTES, 0, 10), "layout.record_size is 0"),
        (l(100, 95, GPUSORT_FILE_KEY_BYTES, 0, 10), "runs past the end of a 100-byte record"),
        (l(100, usize::MAX, GPUSORT_FILE_KEY_LE, 0, 0), "runs past the end"),
    ];
    for (layout, words) in cases {
        assert_eq!(sort(&dir, &layout, 0, 0, null_mut()), GPUSORT_INVALID_ARGUMENT, "{words}");
        assert!(last_error().contains(words), "{words}: {}", last_error());
        let (p, mut c) = (dir.c("in"), gpusort_file_check::default());
        assert_eq!(unsafe { gpusort_check_file(null(), p.as_ptr(), &layout, 0, &mut c) }, GPUSORT_INVALID_ARGUMENT);
    }
    assert_eq!(sort(&dir, null(), 0, 0, null_mut()), GPUSORT_INVALID_ARGUMENT);
    assert!(last_error().contains("layout is NULL"));
    assert_eq!(sort(&dir, &GRAY, 2, 0, null_mut()), GPUSORT_INVALID_ARGUMENT);
    assert!(last_error().contains("order 2"));
    assert_eq!(sort(&dir, &GRAY, 0, 1000, null_mut()), GPUSORT_INVALID_ARGUMENT);
    assert!(last_error().contains("host memory limit of 1000 bytes"), "{}", last_error());
    let (i, o, empty) = (dir.c("in"), dir.c("out"), CString::new("").unwrap());
    let none = unsafe { gpusort_sort_file(null(), null(), o.as_ptr(), &GRAY, 0, 0, null(), null_mut()) };
    assert!(none == GPUSORT_INVALID_ARGUMENT && last_error() == "input is NULL");
    let none = unsafe { gpusort_sort_file(null(), i.as_ptr(), null(), &GRAY, 0, 0, null(), null_mut()) };
    assert!(none == GPUSORT_INVALID_ARGUMENT && last_error() == "output is NULL");
    let none = unsafe { gpusort_sort_file(null(), i.as_ptr(), empty.as_ptr(), &GRAY, 0, 0, null(), null_mut()) };
    assert!(none == GPUSORT_INVALID_ARGUMENT && last_error() == "output is an empty string");
    let none = unsafe { gpusort_sort_file(null(), i.as_ptr(), o.as_ptr(), &GRAY, 0, 0, empty.as_ptr(), null_mut()) };
    assert!(none == GPUSORT_INVALID_ARGUMENT && last_error() == "temp_dir is an empty string");
    assert_eq!(
        unsafe { gpusort_check_file(null(), null(), &GRAY, 0, &mut gpusort_file_check::default()) },
        GPUSORT_INVALID_ARGUMENT
    );
    assert_eq!(unsafe { gpusort_check_file(null(), i.as_ptr(), &GRAY, 0, null_mut()) }, GPUSORT_INVALID_ARGUMENT);
    assert!(last_error().contains("out"));
    // Floats in another order than total: refused by both.
    let mut nan_last = null_mut();
    assert_eq!(
        unsafe { gpusort_sorter_with_float_order(null(), GPUSORT_FLOAT_ORDER_NAN_LAST, &mut nan_last) },
        GPUSORT_OK
    );
    let floats = l(100, 0, GPUSORT_FILE_KEY_LE, GPUSORT_KEY_F32, 0);
    let st = unsafe { gpusort_sort_file(nan_last, i.as_ptr(), o.as_ptr(), &floats, 0, 0, null(), null_mut()) };
    assert_eq!(st, GPUSORT_INVALID_ARGUMENT);
    let st = unsafe { gpusort_check_file(nan_last, i.as_ptr(), &floats, 0, &mut gpusort_file_check::default()) };
    assert!(st == GPUSORT_INVALID_ARGUMENT && last_error().contains("total order"), "{}", last_error());
    assert_eq!(
        unsafe { gpusort_check_file(nan_last, i.as_ptr(), &GRAY, 0, &mut gpusort_file_check::default()) },
        GPUSORT_OK
    );
    unsafe { gpusort_sorter_free(nan_last) };
    assert_eq!(dir.names(), ["in"]);
}

#[test]
fn files_that_cannot_be_read_or_hold_a_partial_record_leave_the_output_alone() {
    let dir = Dir::new("partial");
    let data = gray_records(50);
    dir.write("in", &data[..data.len() - 1]);
    dir.write("out", b"old output");
    let mut r = gpusort_file_report { records: 77, ..Default::default() };
    assert_eq!(sort(&dir, &GRAY, 0, 0, &mut r), GPUSORT_INVALID_ARGUMENT);
    assert!(last_error().contains("not a whole number of 100-byte records"), "{}", last_error());
    assert_eq!(r.records, 77, "the report is written on success only");
    let (p, mut c) = (dir.c("in"), gpusort_file_check::default());
    assert_eq!(unsafe { gpusort_check_file(null(), p.as_ptr(), &GRAY, 0, &mut c) }, GPUSORT_INVALID_ARGUMENT);
    let missing = dir.c("missing");
    let o = dir.c("out");
    let st = unsafe { gpusort_sort_file(null(), missing.as_ptr(), o.as_ptr(), &GRAY, 0, 0, null(), null_mut()) };
    assert_eq!(st, GPUSORT_IO_ERROR);
    let message = last_error();
    assert!(message.contains(&*dir.0.join("missing").to_string_lossy()) && message.contains("os error 2"), "{message}");
    let st = unsafe { gpusort_check_file(null(), missing.as_ptr(), &GRAY, 0, &mut c) };
    assert!(st == GPUSORT_IO_ERROR && last_error().contains("missing"));
    assert_eq!(dir.read("out").unwrap(), b"old output");
    assert_eq!(dir.names(), ["in", "out"]);
}

unsafe extern "C" fn stop_in_the_merge(p: *const gpusort_file_progress, user: *mut c_void) -> c_int {
    let seen = &mut *user.cast::<Vec<gpusort_file_progress>>();
    seen.push(*p);
    c_int::from((*p).phase == GPUSORT_FILE_PHASE_MERGE)
}

unsafe extern "C" fn go_on(_: *const gpusort_file_progress, user: *mut c_void) -> c_int {
    *user.cast::<u64>() += 1;
    0
}

#[test]
fn a_progress_callback_sees_both_phases_and_can_cancel() {
    let dir = Dir::new("progress");
    let data = gray_records(20_000);
    dir.write("in", &data);
    dir.write("out", b"old output");
    let (i, o) = (dir.c("in"), dir.c("out"));
    let mut seen: Vec<gpusort_file_progress> = Vec::new();
    let user = (&mut seen as *mut Vec<gpusort_file_progress>).cast();
    let st = unsafe {
        gpusort_sort_file_with_progress(
            null(),
            i.as_ptr(),
            o.as_ptr(),
            &GRAY,
            0,
            512 << 10,
            null(),
            null_mut(),
            Some(stop_in_the_merge),
            user,
        )
    };
    assert_eq!(st, GPUSORT_CANCELLED);
    assert_eq!(last_error(), "the progress callback stopped the sort");
    let runs: Vec<_> = seen.iter().filter(|p| p.phase == GPUSORT_FILE_PHASE_RUNS).collect();
    assert!(runs.len() > 2 && runs.iter().all(|p| p.total == 2_000_000 && p.merge_pass == 0 && p.merge_passes >= 1));
    assert!(runs.windows(2).all(|w| w[0].done < w[1].done) && runs.last().unwrap().done == 2_000_000);
    assert_eq!(seen.last().map(|p| (p.phase, p.merge_pass)), Some((GPUSORT_FILE_PHASE_MERGE, 1)));
    assert_eq!(dir.read("out").unwrap(), b"old output");
    assert_eq!(dir.names(), ["in", "out"]);
    let mut calls = 0u64;
    let st = unsafe {
        gpusort_sort_file_with_progress(
            null(),
            i.as_ptr(),
            o.as_ptr(),
            &GRAY,
            0,
            512 << 10,
            null(),
            null_mut(),
            Some(go_on),
            (&mut calls as *mut u64).cast(),
        )
    };
    assert!(st == GPUSORT_OK && calls > 3);
    assert!(dir.read("out").unwrap() == stable_by_key(&data, false));
    let st = unsafe {
        gpusort_sort_file_with_progress(
            null(),
            i.as_ptr(),
            o.as_ptr(),
            &GRAY,
            1,
            0,
            null(),
            null_mut(),
            None,
            null_mut(),
        )
    };
    assert_eq!(st, GPUSORT_OK);
    assert!(dir.read("out").unwrap() == stable_by_key(&data, true));
}
