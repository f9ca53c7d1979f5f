//! The demo program as a user runs it: its usage, its errors for bad arguments and bad
//! environment values, and a run that checks its own result. Each run is a child process, so the
//! environment it gets is its own.

use std::process::{Command, Output};

fn demo(args: &[&str], env: &[(&str, &str)]) -> Output {
    // A test binary carried to another machine (ci/gpu.sh) is told where the demo lies there.
    let bin = std::env::var_os("GPUSORT_DEMO_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_gpusort-demo").into());
    let mut c = Command::new(bin);
    c.args(args).env_remove("GPUSORT_BACKEND").env_remove("GPUSORT_POOL_KEEP_BYTES");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run gpusort-demo")
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn help_lists_the_options() {
    let o = demo(&["--help"], &[]);
    let (out, _) = text(&o);
    assert!(o.status.success());
    for word in ["Usage:", "--data", "--algorithm", "--backend", "--descending", "--no-keep-memory", "16M"] {
        assert!(out.contains(word), "--help lacks {word}: {out}");
    }
}

#[test]
fn bad_arguments_are_refused_with_a_reason() {
    for (args, says) in [
        (&["--bogus"][..], "unexpected argument '--bogus'"),
        (&["12Q"][..], "`12Q` is not a count"),
        (&["--data", "kvp64"][..], "possible values"),
        (&["--algorithm", "quick"][..], "possible values"),
    ] {
        let o = demo(args, &[]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {out}{err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} sorted anyway: {out}");
    }
}

#[test]
fn sorts_checks_and_reports_each_kind_of_data() {
    for data in ["kvp", "keys-f32", "pairs-u64"] {
        let o = demo(&["--data", data, "--descending", "5000", "70K"], &[]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{data}: {out}{err}");
        assert_eq!(out.matches("valid:").count(), 2, "{data}: {out}");
        assert!(out.contains("kept:"), "{out}");
        // The wording follows the backend that ran: no GPU words in the report of a CPU sort
        // (each size's report is a paragraph of its own; with a GPU, 70K may run there).
        for size in out.split("\n\n").filter(|p| p.contains("on the cpu backend")) {
            assert!(!size.contains("kernels") && !size.contains("GPU"), "{data}: {size}");
        }
    }
}

#[test]
fn a_bad_backend_variable_is_named_and_nothing_sorts() {
    let o = demo(&["1000"], &[("GPUSORT_BACKEND", "gpuu")]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("refuses to sort: GPUSORT_BACKEND=gpuu is not one of auto, cpu, cuda"), "{out}");
    assert!(err.contains("configuration: GPUSORT_BACKEND=gpuu"), "{err}");
    assert!(!out.contains("valid:"), "{out}");
}

#[test]
fn a_bad_number_is_reported_once_and_ignored() {
    let o = demo(&["1000", "2000"], &[("GPUSORT_POOL_KEEP_BYTES", "abc")]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert_eq!(err.matches("GPUSORT_POOL_KEEP_BYTES=abc is not a number of bytes").count(), 1, "{err}");
}

fn kept_mib(out: &str) -> f64 {
    let line = out.lines().find(|l| l.starts_with("kept:")).expect("a kept: line");
    line.split_whitespace().nth(1).and_then(|x| x.parse().ok()).expect("kept: <MiB>")
}

#[test]
fn keeping_no_memory_keeps_none() {
    let o = demo(&["--no-keep-memory", "1M"], &[]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(kept_mib(&out) == 0.0, "{out}");
    // The same run keeping memory holds the CPU scratch, or the pinned staging, for the next sort.
    let (out, _) = text(&demo(&["1M"], &[]));
    assert!(kept_mib(&out) > 0.0, "{out}");
}
