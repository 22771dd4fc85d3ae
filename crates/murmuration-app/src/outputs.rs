//! Output files written atomically: data goes to a temporary file beside the
//! destination, which is renamed over it only when complete. After an error the
//! destination is untouched; after Ctrl-C it holds everything up to the stop.
//!
//! - metrics: CSV, one row per sampled step;
//! - trajectories: NPY (`float32`, shape `[frames, boids, dim]`, numpy's
//!   `np.load` reads it; a boid removed during the run is NaN from then on) or
//!   CSV (`step,id,species,x,y[,z],vx,vy[,vz]`, living boids only).

use crate::failure::invalid;
use anyhow::{Context, Result};
use murmuration::{Vector, World};
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// A file that appears at its destination only when [`AtomicFile::finish`] runs
/// (the core's [`murmuration::AtomicFile`], with messages naming the option).
pub struct AtomicFile {
    file: murmuration::AtomicFile,
}

/// Checks that `dest` can be written (its folder exists and takes new files) by
/// creating a temporary file there: a bad output path fails before any work.
pub fn probe(dest: &Path, what: &str) -> Result<()> {
    AtomicFile::create(dest, what).map(drop)
}

/// Refuses two of the named files that are one file: the same path, or paths that
/// meet through `..`, symbolic links or hard links (one output would silently
/// replace the other).
pub fn distinct(files: &[(&str, &Path)]) -> Result<()> {
    let keys: Vec<Option<FileKey>> = files.iter().map(|(_, p)| FileKey::of(p)).collect();
    for (i, a) in keys.iter().enumerate() {
        for (j, b) in keys.iter().enumerate().skip(i + 1) {
            if a.is_some() && a == b {
                let ((wa, pa), (wb, pb)) = (files[i], files[j]);
                return Err(invalid(format!(
                    "{wa} {} and {wb} {} are the same file: one would overwrite the other; give each its own path",
                    pa.display(),
                    pb.display()
                )));
            }
        }
    }
    Ok(())
}

/// What makes two paths one file: an existing file's device and inode (links
/// followed), or a new file's canonical folder and name.
#[derive(Debug, PartialEq, Eq)]
enum FileKey {
    #[cfg(unix)]
    Inode(u64, u64),
    Path(PathBuf),
}

impl FileKey {
    fn of(p: &Path) -> Option<Self> {
        #[cfg(unix)]
        if let Ok(m) = std::fs::metadata(p) {
            use std::os::unix::fs::MetadataExt;
            return Some(Self::Inode(m.dev(), m.ino()));
        }
        if let Ok(c) = p.canonicalize() {
            return Some(Self::Path(c));
        }
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(Self::Path(dir.canonicalize().ok()?.join(p.file_name()?)))
    }
}

impl AtomicFile {
    /// Starts writing `dest` (`what` names the option in messages); says on stderr
    /// which stale temporary files of earlier, killed runs it removed.
    pub fn create(dest: &Path, what: &str) -> Result<Self> {
        let (file, removed) = murmuration::AtomicFile::create(dest)
            .map_err(|e| invalid(format!("{what} {} cannot be written: {e}", dest.display())))?;
        for p in removed {
            eprintln!(
                "removed {}, a temporary file left by an interrupted run",
                p.display()
            );
        }
        Ok(Self { file })
    }

    /// The buffered writer.
    pub fn writer(&mut self) -> &mut BufWriter<NamedTempFile> {
        self.file.writer()
    }

    /// A checkpoint: what was written so far appears at the destination
    /// (through a temporary copy renamed into place, as a finished file would),
    /// and writing goes on. `head` replaces the copy's first bytes (an NPY
    /// header with the frame count so far).
    pub fn publish(&mut self, head: Option<&[u8]>) -> Result<()> {
        let dest = self.file.dest().to_path_buf();
        let w = self.file.writer();
        w.flush()?;
        let mut src = File::open(w.get_ref().path())
            .with_context(|| format!("cannot read back the output for {}", dest.display()))?;
        let mut copy = AtomicFile::create(&dest, "checkpoint")?;
        std::io::copy(&mut src, copy.writer())?;
        if let Some(head) = head {
            let c = copy.writer();
            c.flush()?;
            let f: &mut File = c.get_mut().as_file_mut();
            f.seek(SeekFrom::Start(0))?;
            f.write_all(head)?;
            f.seek(SeekFrom::End(0))?;
        }
        copy.finish()
    }

    /// Flushes, syncs and renames the file into place.
    pub fn finish(self) -> Result<()> {
        let dest = self.file.dest().to_path_buf();
        self.file
            .finish()
            .with_context(|| format!("writing {} failed", dest.display()))
    }
}

/// The metrics CSV: `step,time,count,polarization,…,zone_0,…`.
pub struct MetricsCsv {
    file: AtomicFile,
}

impl MetricsCsv {
    /// Starts the file and writes the header.
    pub fn create(dest: &Path, zones: usize) -> Result<Self> {
        let mut file = AtomicFile::create(dest, "--metrics")?;
        let w = file.writer();
        writeln!(
            w,
            "{}",
            murmuration::metrics::table_columns(zones).join(",")
        )?;
        Ok(Self { file })
    }

    /// Continues the table at `dest` that a checkpointed run left, for a run
    /// resumed at `step`: its rows up to that step are kept and new ones follow,
    /// so the finished file is the one an uninterrupted run writes. `None` when
    /// there is no file to continue.
    pub fn resume(dest: &Path, zones: usize, step: u64, every: u64) -> Result<Option<Self>> {
        let Some(text) = read_existing(dest, "--metrics")? else {
            return Ok(None);
        };
        let header = murmuration::metrics::table_columns(zones).join(",");
        let mut lines = text.lines();
        if lines.next() != Some(header.as_str()) {
            return Err(invalid(format!(
                "--metrics {} cannot be continued: its columns are not this run's; give another path",
                dest.display()
            )));
        }
        let mut file = AtomicFile::create(dest, "--metrics")?;
        let w = file.writer();
        writeln!(w, "{header}")?;
        // The last row due at or before the snapshot's step must be there: a
        // table that ends earlier is not this run's (or lost its tail).
        let due = step - step % every;
        let (mut first, mut last) = (None, None);
        for line in lines {
            match line.split(',').next().and_then(|s| s.parse::<u64>().ok()) {
                Some(s) if s <= step => {
                    writeln!(w, "{line}")?;
                    first.get_or_insert(s);
                    last = Some(s);
                }
                Some(_) => break,
                None => {
                    return Err(invalid(format!(
                        "--metrics {} cannot be continued: a row does not start with a step: {line:?}",
                        dest.display()
                    )));
                }
            }
        }
        if first.is_some_and(|f| f <= due) && last != Some(due) {
            return Err(invalid(format!(
                "--metrics {} cannot be continued: its rows end at step {}, but a run to step {step} with --metrics-every {every} has one at step {due}; give another path or the run's own options",
                dest.display(),
                last.map_or("(none)".to_string(), |l| l.to_string())
            )));
        }
        Ok(Some(Self { file }))
    }

    /// Publishes the rows so far at the destination (a checkpoint).
    pub fn publish(&mut self) -> Result<()> {
        self.file.publish(None)
    }

    /// One row for the world's current state.
    pub fn row<V: Vector>(&mut self, world: &World<V>) -> Result<()> {
        let m = world.metrics();
        let w = self.file.writer();
        write!(w, "{},{}", world.step_index(), world.time())?;
        for (_, v) in m.scalars() {
            write!(w, ",{v}")?;
        }
        for z in world.zones() {
            write!(w, ",{}", z.count())?;
        }
        writeln!(w)?;
        Ok(())
    }

    /// Renames the finished file into place.
    pub fn finish(self) -> Result<()> {
        self.file.finish()
    }
}

/// Format of a trajectory file, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrajectoryFormat {
    /// NumPy `.npy`.
    Npy,
    /// `.csv`.
    Csv,
}

impl TrajectoryFormat {
    /// From the destination's extension (`.npy` or `.csv`).
    pub fn of(path: &Path) -> Result<Self> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("npy") => Ok(Self::Npy),
            Some("csv") => Ok(Self::Csv),
            _ => Err(invalid(format!(
                "--trajectory {}: the file name must end in .npy or .csv",
                path.display()
            ))),
        }
    }
}

/// Length of the NPY header (magic to newline), a multiple of 64 with room for
/// any frame count.
const NPY_HEADER: usize = 128;

/// A trajectory being written.
pub struct Trajectory {
    file: AtomicFile,
    format: TrajectoryFormat,
    frames: u64,
    /// Boid-id slots per frame (NPY): ids below this.
    width: usize,
    dim: usize,
    buf: Vec<f32>,
}

impl Trajectory {
    /// Starts the file; `width` is the number of boid-id slots (NPY columns).
    pub fn create(dest: &Path, width: usize, dim: usize) -> Result<Self> {
        let format = TrajectoryFormat::of(dest)?;
        let mut file = AtomicFile::create(dest, "--trajectory")?;
        match format {
            TrajectoryFormat::Npy => file.writer().write_all(&npy_header(0, width, dim))?,
            TrajectoryFormat::Csv => {
                let axes = &["x", "y", "z"][..dim];
                let v: Vec<String> = axes.iter().map(|a| format!("v{a}")).collect();
                writeln!(
                    file.writer(),
                    "step,id,species,{},{}",
                    axes.join(","),
                    v.join(",")
                )?;
            }
        }
        Ok(Self {
            file,
            format,
            frames: 0,
            width,
            dim,
            buf: Vec::new(),
        })
    }

    /// Continues the trajectory at `dest` that a checkpointed run left, for a
    /// run resumed at `step` that writes a frame every `every` steps: the
    /// frames up to that step are kept (NPY: steps 0, every, … ≤ step; CSV: the
    /// rows whose step is at most `step`). `None` when there is no file.
    pub fn resume(
        dest: &Path,
        dim: usize,
        step: u64,
        every: u64,
        checkpoint: u64,
    ) -> Result<Option<Self>> {
        let format = TrajectoryFormat::of(dest)?;
        let bad = |why: String| {
            invalid(format!(
                "--trajectory {} cannot be continued: {why}; give another path",
                dest.display()
            ))
        };
        match format {
            TrajectoryFormat::Npy => {
                let bytes = match std::fs::read(dest) {
                    Ok(b) => b,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                    Err(e) => return Err(bad(e.to_string())),
                };
                let (frames, width, d) = npy_shape(&bytes)
                    .ok_or_else(|| bad("it is not a trajectory this program wrote".into()))?;
                if d != dim {
                    return Err(bad(format!(
                        "it holds {d}D positions, this world is {dim}D"
                    )));
                }
                let frame_bytes = width * dim * 4;
                if bytes.len() != NPY_HEADER + frames as usize * frame_bytes {
                    return Err(bad("its length does not match its header".into()));
                }
                // An NPY file does not say at which steps its frames were
                // taken: it is continued as a checkpointed run's from step 0
                // with this --every, published at the snapshot's step or at
                // the next checkpoint (killed before the snapshot followed).
                let keep = step / every + 1;
                let next = (step / checkpoint + 1) * checkpoint;
                if frames != keep && frames != next / every + 1 {
                    return Err(bad(format!(
                        "it holds {frames} frames, but a checkpointed run from step 0 with --every {every} holds {keep} at step {step} (or {} at the next checkpoint, {next})",
                        next / every + 1
                    )));
                }
                let mut t = Self::create(dest, width, dim)?;
                t.file
                    .writer()
                    .write_all(&bytes[NPY_HEADER..NPY_HEADER + keep as usize * frame_bytes])?;
                t.frames = keep;
                Ok(Some(t))
            }
            TrajectoryFormat::Csv => {
                let Some(text) = read_existing(dest, "--trajectory")? else {
                    return Ok(None);
                };
                let mut t = Self::create(dest, 0, dim)?;
                let mut lines = text.lines();
                let header = lines.next().unwrap_or_default();
                let axes = &["x", "y", "z"][..dim];
                if header.split(',').count() != 3 + 2 * axes.len() {
                    return Err(bad(format!("its columns are not a {dim}D trajectory's")));
                }
                let w = t.file.writer();
                for line in lines {
                    match line.split(',').next().and_then(|s| s.parse::<u64>().ok()) {
                        Some(s) if s <= step => writeln!(w, "{line}")?,
                        Some(_) => break,
                        None => {
                            return Err(bad(format!("a row does not start with a step: {line:?}")));
                        }
                    }
                }
                Ok(Some(t))
            }
        }
    }

    /// Publishes the frames so far at the destination (a checkpoint).
    pub fn publish(&mut self) -> Result<()> {
        let head = (self.format == TrajectoryFormat::Npy)
            .then(|| npy_header(self.frames, self.width, self.dim));
        self.file.publish(head.as_deref())
    }

    /// Appends the world's current state as one frame.
    pub fn frame<V: Vector>(&mut self, world: &World<V>) -> Result<()> {
        let (ids, pos) = (world.ids(), world.positions());
        match self.format {
            TrajectoryFormat::Npy => {
                self.buf.clear();
                self.buf.resize(self.width * self.dim, f32::NAN);
                for (&id, p) in ids.iter().zip(pos) {
                    let id = id as usize;
                    if id < self.width {
                        let a = p.to_array3();
                        self.buf[id * self.dim..(id + 1) * self.dim]
                            .copy_from_slice(&a[..self.dim]);
                    }
                }
                let w = self.file.writer();
                for x in &self.buf {
                    w.write_all(&x.to_le_bytes())?;
                }
            }
            TrajectoryFormat::Csv => {
                let step = world.step_index();
                let (vel, sp) = (world.velocities(), world.boid_species());
                let w = self.file.writer();
                for i in 0..ids.len() {
                    write!(w, "{step},{},{}", ids[i], sp[i])?;
                    for x in &pos[i].to_array3()[..self.dim] {
                        write!(w, ",{x}")?;
                    }
                    for x in &vel[i].to_array3()[..self.dim] {
                        write!(w, ",{x}")?;
                    }
                    writeln!(w)?;
                }
            }
        }
        self.frames += 1;
        Ok(())
    }

    /// Completes the header (NPY: the frame count) and renames the file into place.
    pub fn finish(mut self) -> Result<()> {
        if self.format == TrajectoryFormat::Npy {
            let w = self.file.writer();
            w.flush()?;
            let f: &mut File = w.get_mut().as_file_mut();
            f.seek(SeekFrom::Start(0))?;
            f.write_all(&npy_header(self.frames, self.width, self.dim))?;
            f.seek(SeekFrom::End(0))?;
        }
        self.file.finish()
    }
}

/// The text of an existing output, `None` when there is none.
fn read_existing(dest: &Path, what: &str) -> Result<Option<String>> {
    match std::fs::read_to_string(dest) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(invalid(format!(
            "{what} {} cannot be continued: {e}",
            dest.display()
        ))),
    }
}

/// `(frames, width, dim)` of an NPY header [`npy_header`] wrote.
fn npy_shape(bytes: &[u8]) -> Option<(u64, usize, usize)> {
    if bytes.len() < NPY_HEADER || !bytes.starts_with(b"\x93NUMPY\x01\x00") {
        return None;
    }
    let text = std::str::from_utf8(&bytes[10..NPY_HEADER]).ok()?;
    if !text.contains("'descr': '<f4'") {
        return None;
    }
    let shape = text.split("'shape': (").nth(1)?.split(')').next()?;
    let mut n = shape.split(',').map(|s| s.trim().parse::<u64>());
    let (f, w, d) = (n.next()?.ok()?, n.next()?.ok()?, n.next()?.ok()?);
    Some((f, w as usize, d as usize))
}

/// An NPY version 1.0 header for little-endian `float32` data of shape
/// `[frames, width, dim]`, padded to [`NPY_HEADER`] bytes.
pub fn npy_header(frames: u64, width: usize, dim: usize) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({frames}, {width}, {dim}), }}"
    );
    let mut h = b"\x93NUMPY\x01\x00".to_vec();
    let len = NPY_HEADER - 10;
    h.extend_from_slice(&(len as u16).to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    h.resize(NPY_HEADER - 1, b' ');
    h.push(b'\n');
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_header_is_aligned_and_fits_any_count() {
        for frames in [0, 7, u64::MAX] {
            let h = npy_header(frames, u32::MAX as usize, 3);
            assert_eq!(h.len(), NPY_HEADER);
            assert_eq!(h.len() % 64, 0);
            assert_eq!(*h.last().unwrap(), b'\n');
            let text = String::from_utf8_lossy(&h[10..]);
            assert!(text.contains(&format!("'shape': ({frames}, ")), "{text}");
        }
    }

    #[test]
    fn an_unfinished_file_never_reaches_its_destination() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.csv");
        std::fs::write(&dest, "old").unwrap();
        {
            let mut f = AtomicFile::create(&dest, "--metrics").unwrap();
            f.writer().write_all(b"new, half written").unwrap();
            // Dropped without finish: an error path.
        }
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "old");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "temp file left"
        );
        let mut f = AtomicFile::create(&dest, "--metrics").unwrap();
        f.writer().write_all(b"new").unwrap();
        f.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "new");
    }
}
