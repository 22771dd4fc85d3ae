//! Memory this process may use and has used, from Linux's /proc and /sys (absent
//! elsewhere): the machine's available memory, the process's own limits
//! (`ulimit -v`, `ulimit -d`) and its cgroup's memory limit. Front ends check a
//! scenario against it before building ([`crate::scenario::Scenario::check_memory`]),
//! so a world too large is an error rather than an abort or the OOM killer.

/// Resets the peak-resident counter (`VmHWM`) to the current resident size.
pub fn reset_peak() {
    // Writing "5" to clear_refs resets the high-water mark (Linux ≥ 4.0).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident memory in bytes since the last reset, if the OS reports it.
pub fn peak_bytes() -> Option<u64> {
    status_kib("VmHWM:").map(|kb| kb * 1024)
}

/// The most memory this process can still allocate, bytes, and what sets it: the
/// least of the machine's available memory, the room left under the address-space
/// and data-size limits, and the room left in the cgroup. `None` when nothing says.
pub fn allocatable() -> Option<(u64, &'static str)> {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let threads = rayon::current_num_threads() as u64;
    [
        (
            meminfo_kib("MemAvailable:").map(|kb| kb * 1024),
            "available on this machine",
        ),
        (
            // Every worker thread reserves address space for its stack and its
            // allocator arena (64 MiB with glibc) before it allocates anything.
            room(
                limit_of(&limits, "Max address space"),
                status_kib("VmSize:").map(|kb| kb * 1024 + (threads + 1) * (72 << 20)),
            ),
            "left under this process's address-space limit (ulimit -v)",
        ),
        (
            room(
                limit_of(&limits, "Max data size"),
                status_kib("VmData:").map(|kb| kb * 1024),
            ),
            "left under this process's data-size limit (ulimit -d)",
        ),
        (
            cgroup_room(),
            "left under this process's cgroup memory limit",
        ),
    ]
    .into_iter()
    .filter_map(|(bytes, why)| bytes.map(|b| (b, why)))
    .min_by_key(|&(b, _)| b)
}

/// `limit - used` (0 when used is over it); `None` without a limit.
fn room(limit: Option<u64>, used: Option<u64>) -> Option<u64> {
    limit.map(|l| l.saturating_sub(used.unwrap_or(0)))
}

/// The soft limit of one row of /proc/self/limits, bytes (`None` when unlimited).
fn limit_of(limits: &str, row: &str) -> Option<u64> {
    let rest = limits.lines().find_map(|l| l.strip_prefix(row))?;
    rest.split_whitespace().next()?.parse().ok()
}

fn status_kib(key: &str) -> Option<u64> {
    kib_field(&std::fs::read_to_string("/proc/self/status").ok()?, key)
}

fn meminfo_kib(key: &str) -> Option<u64> {
    kib_field(&std::fs::read_to_string("/proc/meminfo").ok()?, key)
}

fn kib_field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Room left in this process's cgroup: cgroup v2 (`memory.max - memory.current`)
/// or v1 (`memory.limit_in_bytes - memory.usage_in_bytes`), at the process's own
/// cgroup path or at the root a cgroup namespace shows.
fn cgroup_room() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let path_of = |pred: &dyn Fn(&str) -> bool| {
        groups.lines().find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            pred(controllers).then(|| path.trim_start_matches('/').to_string())
        })
    };
    let read = |p: String| -> Option<u64> { std::fs::read_to_string(p).ok()?.trim().parse().ok() };
    let mut best: Option<u64> = None;
    let mut consider = |limit: Option<u64>, used: Option<u64>| {
        // v1 writes "no limit" as a huge page-rounded number.
        if let Some(l) = limit.filter(|&l| l < 1 << 60) {
            let r = l.saturating_sub(used.unwrap_or(0));
            best = Some(best.map_or(r, |b| b.min(r)));
        }
    };
    if let Some(v2) = path_of(&|c| c.is_empty()) {
        for dir in [format!("/sys/fs/cgroup/{v2}"), "/sys/fs/cgroup".to_string()] {
            consider(
                read(format!("{dir}/memory.max")),
                read(format!("{dir}/memory.current")),
            );
        }
    }
    if let Some(v1) = path_of(&|c| c.split(',').any(|c| c == "memory")) {
        for dir in [
            format!("/sys/fs/cgroup/memory/{v1}"),
            "/sys/fs/cgroup/memory".to_string(),
        ] {
            consider(
                read(format!("{dir}/memory.limit_in_bytes")),
                read(format!("{dir}/memory.usage_in_bytes")),
            );
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_rows_read_bytes_and_unlimited() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max data size             unlimited            unlimited            bytes\n\
                      Max address space         4096000000           unlimited            bytes\n";
        assert_eq!(limit_of(limits, "Max address space"), Some(4_096_000_000));
        assert_eq!(limit_of(limits, "Max data size"), None);
        assert_eq!(room(Some(100), Some(30)), Some(70));
        assert_eq!(room(Some(10), Some(30)), Some(0));
        assert_eq!(room(None, Some(30)), None);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn this_process_has_some_room() {
        let (bytes, why) = allocatable().expect("Linux reports available memory");
        assert!(bytes > 0 && !why.is_empty());
    }
}
