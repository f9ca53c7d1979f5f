//! The committed generated files, checked in the order they are made: the per-key-type sources
//! (`generate`, from the key list), then `include/gpusort.h` (cbindgen, from those sources). The
//! test fails when a committed file differs from a fresh one; `GPUSORT_BLESS=1` rewrites them
//! instead, sources first, so that the header is made from the fresh sources.

mod generate;

use std::path::Path;

fn bless() -> bool {
    std::env::var_os("GPUSORT_BLESS").is_some_and(|v| v == "1")
}

/// `Some(what differs)` when the committed `path` is not `fresh` (after writing it when blessing).
fn compare(path: &Path, fresh: &str) -> Option<String> {
    if bless() {
        std::fs::write(path, fresh).unwrap();
        return None;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    let first = committed.lines().zip(fresh.lines()).position(|(a, b)| a != b);
    let first = first
        .map(|i| (i + 1).to_string())
        .or_else(|| (committed.len() != fresh.len()).then(|| "past the shorter file's end".into()))?;
    Some(format!("{} (first differing line: {first})", path.display()))
}

#[test]
fn generated_sources_and_header_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec![(dir.join("src/args/key_types.rs"), generate::key_type_values())];
    sources.extend(generate::FAMILIES.iter().map(|f| (dir.join("src").join(f.file), f.render())));
    let stale: Vec<String> = sources.iter().filter_map(|(path, fresh)| compare(path, fresh)).collect();
    assert!(
        stale.is_empty(),
        "stale generated sources: {}. Rewrite them with GPUSORT_BLESS=1 cargo test -p gpusort-ffi --test header",
        stale.join(", ")
    );

    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("ffi/cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate the header");
    let fresh_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gpusort.h");
    bindings.write_to_file(&fresh_path);
    let fresh = std::fs::read_to_string(&fresh_path).unwrap();
    if let Some(stale) = compare(&dir.join("include/gpusort.h"), &fresh) {
        panic!(
            "the header {stale} is stale; the fresh one is {}. Rewrite it with GPUSORT_BLESS=1 cargo test -p \
             gpusort-ffi --test header",
            fresh_path.display()
        );
    }
}
