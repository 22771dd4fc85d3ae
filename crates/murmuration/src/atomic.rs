//! Atomic output files, the one way every output (snapshots, metrics,
//! trajectories, tables, pictures) reaches the disk: bytes go to a temporary file
//! beside the destination, created exclusively under an unpredictable name (a
//! planted symlink is never followed), and renamed over the destination only once
//! complete and synced. After an error or a kill the destination is the old file
//! or absent, never partial.
//!
//! Temporary files are named `.NAME.<pid>.<random>.tmp`, so one left behind by a
//! killed run can be proved stale (its process is gone) and removed by the next
//! run that writes NAME ([`AtomicFile::create`] does it).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// A file that appears at its destination only when [`AtomicFile::finish`] runs;
/// dropped unfinished, it leaves nothing behind.
#[derive(Debug)]
pub struct AtomicFile {
    out: BufWriter<NamedTempFile>,
    dest: PathBuf,
    /// Permissions to give the file: the replaced file's, or 0644 for a new one.
    #[cfg(unix)]
    mode: u32,
}

impl AtomicFile {
    /// Starts writing `dest`. Refused: a folder, a path without a file name, an
    /// existing file its owner could not write (as `cp` refuses), a folder that
    /// takes no new files. Stale temporary files of `dest` from dead runs are
    /// removed first; their paths are returned beside the file.
    pub fn create(dest: &Path) -> io::Result<(Self, Vec<PathBuf>)> {
        let (dir, name) = split(dest)?;
        let existing = match std::fs::metadata(dest) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        if let Some(m) = &existing {
            if m.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "it is a folder, not a file",
                ));
            }
            if m.permissions().readonly() {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    "it is read-only; make it writable or choose another path",
                ));
            }
        }
        let removed = remove_stale(dir, &name);
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}.{}.", std::process::id()))
            .suffix(".tmp")
            .tempfile_in(dir)?;
        #[cfg(unix)]
        let mode = {
            use std::os::unix::fs::PermissionsExt;
            existing.map_or(0o644, |m| m.permissions().mode() & 0o7777)
        };
        Ok((
            Self {
                out: BufWriter::with_capacity(1 << 20, tmp),
                dest: dest.to_path_buf(),
                #[cfg(unix)]
                mode,
            },
            removed,
        ))
    }

    /// The buffered writer.
    pub fn writer(&mut self) -> &mut BufWriter<NamedTempFile> {
        &mut self.out
    }

    /// The destination.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Flushes, syncs and renames the file into place, then syncs its folder.
    pub fn finish(self) -> io::Result<()> {
        let tmp = self.out.into_inner().map_err(|e| e.into_error())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(self.mode))?;
        }
        tmp.as_file().sync_all()?;
        tmp.persist(&self.dest).map_err(|e| e.error)?;
        // The rename is durable once the folder is synced (best effort: not every
        // platform can open a folder).
        if let Ok((dir, _)) = split(&self.dest)
            && let Ok(d) = File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// Writes `bytes` to `path` atomically (see the module).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (mut file, _) = AtomicFile::create(path)?;
    file.writer().write_all(bytes)?;
    file.finish()
}

/// The destination's folder (`.` when it has none) and file name.
fn split(dest: &Path) -> io::Result<(&Path, String)> {
    let name = dest
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path has no file name"))?;
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Ok((dir, name.to_string_lossy().into_owned()))
}

/// Removes `.NAME.<pid>.*.tmp` files in `dir` whose process no longer runs (only
/// where the system lists live processes in /proc); returns what it removed.
fn remove_stale(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    if !Path::new("/proc/self").exists() {
        return removed;
    }
    let prefix = format!(".{name}.");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return removed;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|f| f.strip_suffix(".tmp"))
        else {
            continue;
        };
        let Some(pid) = rest.split('.').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file
            && pid != std::process::id()
            && !Path::new(&format!("/proc/{pid}")).exists()
            && std::fs::remove_file(entry.path()).is_ok()
        {
            removed.push(entry.path());
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_appears_only_when_finished() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.csv");
        let (mut f, _) = AtomicFile::create(&dest).unwrap();
        f.writer().write_all(b"a,b\n").unwrap();
        assert!(!dest.exists());
        f.finish().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"a,b\n");
        let (f, _) = AtomicFile::create(&dest).unwrap();
        drop(f);
        assert_eq!(std::fs::read(&dest).unwrap(), b"a,b\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    #[cfg(unix)]
    fn a_read_only_file_is_refused_and_a_writable_one_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("keep.snap");
        std::fs::write(&dest, b"old").unwrap();
        std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o444)).unwrap();
        let e = write_atomic(&dest, b"new").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");
        assert_eq!(std::fs::read(&dest).unwrap(), b"old");
        std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&dest, b"new").unwrap();
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn stale_temporary_files_of_dead_runs_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("run.npy");
        // A pid above the kernel's maximum (4,194,304) never runs.
        let dead = dir.path().join(".run.npy.4999999.abc123.tmp");
        let live = dir
            .path()
            .join(format!(".run.npy.{}.xyz.tmp", std::process::id()));
        let other = dir.path().join(".other.npy.4999999.abc123.tmp");
        for p in [&dead, &live, &other] {
            std::fs::write(p, b"x").unwrap();
        }
        let (_f, removed) = AtomicFile::create(&dest).unwrap();
        assert_eq!(removed, vec![dead.clone()]);
        assert!(!dead.exists() && live.exists() && other.exists());
    }
}
