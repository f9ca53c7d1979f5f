//! The `gpusort` command line as a user runs it: its usage, sorting and checking files (the same
//! bytes as GNU `sort -s` for ASCII lines), its exit statuses, and what an interrupted or killed
//! sort leaves (nothing under the output's name; the next run removes a killed one's files).

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use common::dir::Dir;

fn bin() -> PathBuf {
    // A test binary carried to another machine (ci/gpu.sh) is told where the program lies there.
    std::env::var_os("GPUSORT_CLI_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_gpusort").into()).into()
}

fn gpusort(args: &[&str]) -> Output {
    Command::new(bin()).args(args).env_remove("GPUSORT_BACKEND").output().expect("run gpusort")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn status(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

#[test]
fn help_names_the_commands_and_options() {
    let o = gpusort(&["--help"]);
    assert!(o.status.success());
    for word in ["sort", "check", "generate"] {
        assert!(text(&o).contains(word), "{}", text(&o));
    }
    let o = gpusort(&["sort", "--help"]);
    for word in ["--record", "--key", "--key-type", "--big-endian", "--descending", "--memory-limit", "--temp-dir"] {
        assert!(text(&o).contains(word), "sort --help lacks {word}: {}", text(&o));
    }
}

#[test]
fn ascii_lines_sort_as_gnu_sort_sorts_them_stably() {
    let d = Dir::new("ascii");
    assert!(gpusort(&["generate", "--ascii", "30000", &d.s("in")]).status.success());
    let sorted =
        gpusort(&["sort", "--record", "100", "--key", "0:10", "--memory-limit", "1M", &d.s("in"), &d.s("out")]);
    assert!(sorted.status.success(), "{}", text(&sorted));
    let gnu = Command::new("sort").args(["-s", "-k1.1,1.10", &d.s("in")]).env("LC_ALL", "C").output();
    let gnu = gnu.expect("GNU sort (coreutils)");
    assert!(gnu.status.success());
    assert!(gnu.stdout == std::fs::read(d.0.join("out")).unwrap(), "not GNU sort -s's output");
    let check = gpusort(&["check", "--record", "100", "--key", "0:10", &d.s("out")]);
    assert_eq!(status(&check), 0, "{}", text(&check));
    let unsorted = gpusort(&["check", "--record", "100", "--key", "0:10", &d.s("in")]);
    assert_eq!(status(&unsorted), 1, "{}", text(&unsorted));
    let sum = |o: &Output| text(o).split_whitespace().find(|w| w.starts_with("checksum=")).map(str::to_owned);
    assert_eq!(sum(&check), sum(&unsorted));
    assert!(sum(&check).is_some());
}

#[test]
fn number_keys_big_endian_and_descending() {
    let d = Dir::new("numbers");
    let keys = [5i32, -3, 7, -3, 0, i32::MIN, i32::MAX];
    let data: Vec<u8> =
        keys.iter().enumerate().flat_map(|(i, k)| [k.to_be_bytes(), (i as u32).to_le_bytes()].concat()).collect();
    std::fs::write(d.0.join("in"), &data).unwrap();
    let args = ["--record", "8", "--key", "0:4", "--key-type", "i32", "--big-endian", "--descending"];
    let o = gpusort(&[&["sort", "-q"][..], &args, &[&d.s("in"), &d.s("out")]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let out = std::fs::read(d.0.join("out")).unwrap();
    let got: Vec<(i32, u32)> = out
        .chunks(8)
        .map(|r| (i32::from_be_bytes(r[..4].try_into().unwrap()), u32::from_le_bytes(r[4..].try_into().unwrap())))
        .collect();
    assert_eq!(got, [(i32::MAX, 6), (7, 2), (5, 0), (0, 4), (-3, 1), (-3, 3), (i32::MIN, 5)]);
    assert_eq!(status(&gpusort(&[&["check"][..], &args, &[&d.s("out")]].concat())), 0);
}

#[test]
fn errors_have_their_own_exit_statuses() {
    let d = Dir::new("errors");
    std::fs::write(d.0.join("in"), [1u8; 150]).unwrap();
    for (args, code, says) in [
        (vec!["sort", "--record", "100", "--key", "0:10", &d.s("in"), &d.s("out")], 3, "whole number"),
        (vec!["sort", "--record", "100", "--key", "0:10", &d.s("missing"), &d.s("out")], 4, "missing"),
        (vec!["sort", "--record", "100", "--key", "0:8", "--key-type", "u32", &d.s("in"), &d.s("out")], 3, "4 bytes"),
        (vec!["sort", "--record", "100", "--key", "95:10", &d.s("in"), &d.s("out")], 3, "runs past"),
        (vec!["sort", "--record", "100", "--key", "0-10", &d.s("in"), &d.s("out")], 2, "OFFSET:LENGTH"),
        (
            vec!["sort", "--record", "100", "--key", "0:10", "--memory-limit", "3Q", &d.s("in"), &d.s("out")],
            2,
            "not a size",
        ),
    ] {
        let o = gpusort(&args);
        assert_eq!(status(&o), code, "{args:?}: {}", text(&o));
        assert!(text(&o).contains(says), "{args:?}: {}", text(&o));
    }
    assert_eq!(d.names(), ["in"]);
}

/// Starts a sort long enough to be caught in the middle (a small budget: many runs and merge
/// passes), waits until its scratch files appear, and returns it.
fn start_long_sort(d: &Dir) -> std::process::Child {
    assert!(gpusort(&["generate", "--record", "64", "2M", &d.s("in")]).status.success());
    let child = Command::new(bin())
        .args(["sort", "--record", "64", "--key", "0:16", "--memory-limit", "1M", "-q", &d.s("in"), &d.s("out")])
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !d.names().iter().any(|n| n.starts_with("gpusort-runs-")) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: a signal to our own child, which has not been waited for.
    unsafe { libc::kill(child.id() as i32, sig) };
}

#[test]
fn an_interrupted_sort_removes_its_files() {
    let d = Dir::new("interrupted");
    let mut child = start_long_sort(&d);
    signal(&child, libc::SIGINT);
    let code = child.wait().unwrap().code();
    // Interrupted (130), or done just before the signal came (0): never anything in between.
    match code {
        Some(130) => assert_eq!(d.names(), ["in"]),
        Some(0) => assert_eq!(d.names(), ["in", "out"]),
        other => panic!("exit status {other:?}, files {:?}", d.names()),
    }
}

#[test]
fn the_next_sort_removes_what_a_killed_one_left() {
    let d = Dir::new("killed");
    let mut child = start_long_sort(&d);
    signal(&child, libc::SIGKILL);
    child.wait().unwrap();
    assert!(!d.names().contains(&"out".to_string()), "{:?}", d.names());
    let o = gpusort(&["sort", "--record", "64", "--key", "0:16", "-q", &d.s("in"), &d.s("out")]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(d.names(), ["in", "out"]);
    assert_eq!(status(&gpusort(&["check", "--record", "64", "--key", "0:16", &d.s("out")])), 0);
}
