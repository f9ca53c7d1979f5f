//! The report's data (one JSON line per measurement, `GPUSORT_BENCH_JSON`) and the criterion
//! plumbing shared by the groups.

use std::cmp::Ordering as CmpOrdering;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use criterion::{BenchmarkGroup, BenchmarkId, Throughput};
use serde_json::{json, Value};

use crate::inputs::Pattern;

fn json_sink() -> &'static Mutex<Option<File>> {
    static SINK: OnceLock<Mutex<Option<File>>> = OnceLock::new();
    SINK.get_or_init(|| {
        let file = std::env::var_os("GPUSORT_BENCH_JSON")
            .map(|p| OpenOptions::new().create(true).append(true).open(p).expect("GPUSORT_BENCH_JSON"));
        Mutex::new(file)
    })
}

pub fn emit(record: Value) {
    if let Some(f) = json_sink().lock().unwrap().as_mut() {
        writeln!(f, "{record}").expect("GPUSORT_BENCH_JSON write");
    }
}

pub fn emit_meta(what: &str, text: &str) {
    emit(json!({"src": "bench", "kind": what, "text": text}));
}

/// A JSON number to the microsecond (of a millisecond figure), or null for what was not measured.
pub fn json_num(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 1e6).round() / 1e6)
    } else {
        Value::Null
    }
}

/// Median of `times` (NaN when empty).
pub fn median(times: &[f64]) -> f64 {
    let mut t = times.to_vec();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap_or(CmpOrdering::Equal));
    t.get(t.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Writes one measurement, per-sort times in ms (warm-ups already left out), with `extra` fields
/// after the common ones; returns the median.
pub fn emit_times(
    (group, sort, pattern, n): (&str, &str, &str, usize),
    times: &[f64],
    error: Option<&str>,
    extra: &[(&str, Value)],
) -> f64 {
    let (med, min, mean) = match times.len() {
        0 => (f64::NAN, f64::NAN, f64::NAN),
        k => (median(times), times.iter().copied().fold(f64::INFINITY, f64::min), times.iter().sum::<f64>() / k as f64),
    };
    let mut record = json!({
        "src": "bench",
        "group": group,
        "sort": sort,
        "pattern": pattern,
        "n": n,
        "median_ms": json_num(med),
        "min_ms": json_num(min),
        "mean_ms": json_num(mean),
        "runs": times.len(),
        "error": error,
    });
    if let Value::Object(fields) = &mut record {
        fields.extend(extra.iter().map(|(k, v)| (k.to_string(), v.clone())));
    }
    emit(record);
    med
}

pub fn fast() -> bool {
    std::env::var("GPUSORT_BENCH_FAST").as_deref() == Ok("1")
}

pub fn configure(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, warm_ms: u64, measure_ms: u64) {
    let k = if fast() { 3 } else { 1 };
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(warm_ms / k))
        .measurement_time(Duration::from_millis(measure_ms / k));
}

/// Runs one timed configuration. `setup` makes the state the first time criterion calls the
/// routine (so inputs are built only for benchmarks the filter selects), or reuses `state` from
/// an earlier configuration; `check` sorts once and checks the result before anything is timed;
/// `run` times `iters` sorts, pushing each one's milliseconds.
pub fn bench_one<S>(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    (group, sort, p, n): (&str, &str, Pattern, usize),
    state: &mut Option<Result<S, String>>,
    setup: impl Fn() -> Result<S, String>,
    check: impl Fn(&mut S) -> Result<(), String>,
    mut run: impl FnMut(&mut S, u64, &mut Vec<f64>),
) {
    let mut times = Vec::new();
    let mut verdict: Option<Result<(), String>> = None;
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::new(format!("{sort}/{}", p.name()), n), |b| {
        b.iter_custom(|iters| {
            let s = state.get_or_insert_with(&setup);
            let ok = verdict.get_or_insert_with(|| match s {
                Ok(s) => check(s),
                Err(e) => Err(e.clone()),
            });
            match (s, ok) {
                (Ok(s), Ok(())) => {
                    let before = times.len();
                    run(s, iters, &mut times);
                    Duration::from_secs_f64(times[before..].iter().sum::<f64>() / 1e3)
                }
                // Criterion needs a duration; a failed configuration is reported, not timed.
                _ => Duration::from_millis(iters),
            }
        })
    });
    if let Some(v) = verdict {
        if let Err(e) = &v {
            eprintln!("skipped: {group}/{sort}/{}/{n}: {e}", p.name());
        }
        // Criterion's warm-up calls the routine too: its first sorts are not measurements.
        let skip = if times.len() > 10 { 3 } else { 0 };
        emit_times((group, sort, p.name(), n), &times[skip..], v.err().as_deref(), &[]);
    }
}
