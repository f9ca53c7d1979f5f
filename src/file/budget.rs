//! The host-memory budget of a file sort: the caller's limit, or half of what the process may
//! still use (the system's available memory, or its cgroup's room when that is less).

use crate::SortError;

/// The smallest budget: room for the merge's blocks and runs of at least a few records.
fn minimum(record: usize) -> usize {
    (8 * super::merge::MIN_BLOCK).max(64 * record)
}

/// The budget to sort records of `record` bytes with.
pub(crate) fn resolve(limit: Option<usize>, record: usize) -> Result<usize, SortError> {
    let least = minimum(record);
    match limit {
        Some(bytes) if bytes < least => Err(SortError::InvalidArgument(format!(
            "a host memory limit of {bytes} bytes is below the {least} a file sort of {record}-byte records needs"
        ))),
        Some(bytes) => Ok(bytes),
        None => Ok((available().unwrap_or(1 << 30) / 2).max(least)),
    }
}

/// Bytes of memory the process can still take: `MemAvailable`, or less when its cgroup's limit
/// leaves less room.
fn available() -> Option<usize> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: usize = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(match cgroup_room() {
        Some(room) => room.min(kib * 1024),
        None => kib * 1024,
    })
}

/// The room the process's memory cgroup leaves it, when it has a limit: cgroup v2's
/// `memory.max` less `memory.current`, or v1's `memory.limit_in_bytes` less `memory.usage_in_bytes`.
fn cgroup_room() -> Option<usize> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let read = |dir: &std::path::Path, name: &str| {
        std::fs::read_to_string(dir.join(name)).ok().and_then(|s| s.trim().parse::<usize>().ok())
    };
    let root = std::path::Path::new("/sys/fs/cgroup");
    let v1 = cgroups.lines().find_map(|l| l.split_once(":memory:").map(|(_, p)| p));
    let v2 = cgroups.lines().find_map(|l| l.strip_prefix("0::"));
    let room = |dir: std::path::PathBuf, max: &str, used: &str| {
        // "max" (v2) does not parse; v1 says "no limit" with a value near 2^63.
        read(&dir, max).filter(|&m| m < 1 << 62).map(|m| m.saturating_sub(read(&dir, used).unwrap_or(0)))
    };
    v1.and_then(|p| {
        room(root.join("memory").join(p.trim_start_matches('/')), "memory.limit_in_bytes", "memory.usage_in_bytes")
    })
    .or_else(|| v2.and_then(|p| room(root.join(p.trim_start_matches('/')), "memory.max", "memory.current")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn limits_below_a_few_records_are_refused() {
        assert!(super::resolve(Some(1000), 100).is_err());
        assert_eq!(super::resolve(Some(8 << 20), 100).unwrap(), 8 << 20);
        assert!(super::resolve(None, 100).unwrap() >= super::minimum(100));
    }
}
