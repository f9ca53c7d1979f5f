//! Fails when a kernel source, the nvcc flags or the pinned nvcc version changed after the
//! committed images were built: run `kernels-cuda/build-images.sh` and commit the result.

use sha2::{Digest, Sha256};
use std::path::Path;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The same hash `build-images.sh` computes: for each file in a fixed order, its path and the
/// hex SHA-256 of its content, one per line, all hashed again.
fn source_hash(root: &Path) -> String {
    let mut sources: Vec<String> = std::fs::read_dir(root.join("cuda"))
        .expect("kernels-cuda/cuda exists")
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".cu") || n.ends_with(".cuh"))
        .map(|n| format!("cuda/{n}"))
        .collect();
    sources.sort();
    let mut files = vec!["nvcc.version".to_string(), "nvcc.flags".to_string()];
    files.extend(sources);
    let mut listing = String::new();
    for f in files {
        let content = std::fs::read(root.join(&f)).unwrap();
        listing.push_str(&format!("{f}\n{}\n", hex(&Sha256::digest(&content))));
    }
    hex(&Sha256::digest(listing.as_bytes()))
}

#[test]
fn committed_images_match_their_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let want = source_hash(root);
    assert_eq!(
        gpusort_kernels::SOURCES_SHA256,
        want,
        "kernel images are stale: rebuild them with kernels-cuda/build-images.sh and commit"
    );
    let recorded = std::fs::read_to_string(root.join("images/SOURCES.sha256")).unwrap();
    assert_eq!(recorded.trim(), want);
}

#[test]
fn every_source_has_an_image() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for e in std::fs::read_dir(root.join("cuda")).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if let Some(stem) = name.strip_suffix(".cu") {
            let img = gpusort_kernels::ALL.iter().find(|i| i.name == stem);
            let img = img.unwrap_or_else(|| panic!("cuda/{name} has no image; run build-images.sh"));
            // A fatbin starts with its magic number 0xBA55ED50 (little endian).
            assert_eq!(&img.bytes[..4], &[0x50, 0xed, 0x55, 0xba], "{stem} is not a fatbin");
        }
    }
}
