//! Peak resident memory of this process, from Linux's /proc (absent elsewhere).

/// Resets the peak-resident counter (`VmHWM`) to the current resident size.
pub fn reset_peak() {
    // Writing "5" to clear_refs resets the high-water mark (Linux ≥ 4.0).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident memory in bytes since the last reset, if the OS reports it.
pub fn peak_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
