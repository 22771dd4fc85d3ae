//! Where drawn frames go: one PNG (the last frame), an animated GIF encoded frame
//! by frame, a folder of PNGs, or an MP4 through ffmpeg. Shared by `render` and
//! `game --render`; every file is written atomically.

use crate::failure::invalid;
use crate::outputs::AtomicFile;
use anyhow::{Context, Result};
use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame, ImageEncoder, RgbaImage};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// What kind of output a path asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A `.png`: the last frame.
    Png,
    /// An animated `.gif`.
    Gif,
    /// A folder (a trailing `/` or an existing folder): one PNG per frame.
    Folder,
    /// An `.mp4` (needs ffmpeg).
    Mp4,
}

/// The kind `out` asks for (an error naming `option` for any other).
pub fn kind(out: &Path, option: &str) -> Result<Kind> {
    let s = out.to_string_lossy();
    if out.is_dir() || s.ends_with('/') {
        return Ok(Kind::Folder);
    }
    match out.extension().and_then(|e| e.to_str()) {
        Some("png") => Ok(Kind::Png),
        Some("gif") => Ok(Kind::Gif),
        Some("mp4") => Ok(Kind::Mp4),
        _ => Err(invalid(format!(
            "{option} {}: use a .png, .gif or .mp4 file, or a folder ending in /",
            out.display()
        ))),
    }
}

fn ffmpeg_available() -> bool {
    std::process::Command::new("ffmpeg")
        .arg("-version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Checks that `out` can be written before any work (an error naming `option`).
pub fn check(out: &Path, option: &str) -> Result<Kind> {
    let kind = kind(out, option)?;
    if kind == Kind::Mp4 && !ffmpeg_available() {
        return Err(invalid(format!(
            "{option} .mp4 needs ffmpeg on the PATH; write a .gif or a folder of PNGs instead"
        )));
    }
    match kind {
        Kind::Folder => {
            std::fs::create_dir_all(out).map_err(|e| {
                invalid(format!("{option} {} cannot be created: {e}", out.display()))
            })?;
            crate::outputs::probe(&out.join("frame_00000.png"), option)?;
        }
        _ => crate::outputs::probe(out, option)?,
    }
    Ok(kind)
}

/// An open output taking frames one at a time.
pub struct Sink {
    out: PathBuf,
    kind: Kind,
    size: (u32, u32),
    fps: u32,
    frames: u32,
    last: Vec<u8>,
    gif: Option<(GifEncoder<Shared>, Delay)>,
    gif_file: Option<Rc<RefCell<AtomicFile>>>,
    tmp: Option<tempfile::TempDir>,
}

/// The GIF encoder's writer: the atomic file, shared with the sink, which
/// finishes it once the encoder (writing the GIF's trailer as it drops) is gone.
struct Shared(Rc<RefCell<AtomicFile>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().writer().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.borrow_mut().writer().flush()
    }
}

impl Sink {
    /// Opens `out` (checked with [`check`]) for frames of `size` at `fps`.
    pub fn open(out: &Path, kind: Kind, size: (u32, u32), fps: u32) -> Result<Self> {
        let gif_file = match kind {
            Kind::Gif => Some(Rc::new(RefCell::new(AtomicFile::create(out, "--out")?))),
            _ => None,
        };
        let gif = match &gif_file {
            Some(file) => {
                let mut e = GifEncoder::new_with_speed(Shared(file.clone()), 10);
                e.set_repeat(Repeat::Infinite)?;
                Some((e, Delay::from_numer_denom_ms(1000, fps)))
            }
            None => None,
        };
        let tmp = match kind {
            Kind::Mp4 => {
                Some(tempfile::tempdir().context("cannot make a folder for the MP4's frames")?)
            }
            _ => None,
        };
        Ok(Self {
            out: out.to_path_buf(),
            kind,
            size,
            fps,
            frames: 0,
            last: Vec::new(),
            gif,
            gif_file,
            tmp,
        })
    }

    /// Takes one frame of RGBA pixels.
    pub fn push(&mut self, rgba: Vec<u8>) -> Result<()> {
        let (w, h) = self.size;
        let f = self.frames;
        match self.kind {
            Kind::Folder => write_png(&self.out.join(format!("frame_{f:05}.png")), &rgba, w, h)?,
            Kind::Mp4 => {
                let dir = self.tmp.as_ref().expect("made for mp4").path();
                write_png(&dir.join(format!("frame_{f:05}.png")), &rgba, w, h)?;
            }
            Kind::Gif => {
                let img = RgbaImage::from_raw(w, h, rgba).expect("w*h pixels");
                if let Some((e, delay)) = self.gif.as_mut() {
                    e.encode_frame(Frame::from_parts(img, 0, 0, *delay))
                        .with_context(|| format!("encoding {} failed", self.out.display()))?;
                }
            }
            // Only a PNG keeps its frame: the last one is written at the end.
            Kind::Png => self.last = rgba,
        }
        self.frames += 1;
        Ok(())
    }

    /// Frames taken so far.
    pub fn frames(&self) -> u32 {
        self.frames
    }

    /// Writes what is left (the PNG, the GIF's end, the MP4) and renames it into place.
    pub fn finish(self) -> Result<()> {
        let (w, h) = self.size;
        match self.kind {
            Kind::Png => write_png(&self.out, &self.last, w, h)?,
            Kind::Gif => {
                drop(self.gif);
                if let Some(file) = self.gif_file
                    && let Ok(file) = Rc::try_unwrap(file)
                {
                    file.into_inner().finish()?;
                }
            }
            Kind::Mp4 => {
                let dir = self.tmp.expect("made for mp4");
                let tmp_out = dir.path().join("out.mp4");
                let status = std::process::Command::new("ffmpeg")
                    .args(["-loglevel", "error", "-y", "-framerate"])
                    .arg(self.fps.to_string())
                    .arg("-i")
                    .arg(dir.path().join("frame_%05d.png"))
                    .args([
                        "-c:v",
                        "libx264",
                        "-pix_fmt",
                        "yuv420p",
                        "-vf",
                        "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                    ])
                    .arg(&tmp_out)
                    .status()
                    .context("ffmpeg did not start")?;
                if !status.success() {
                    anyhow::bail!("ffmpeg failed ({status}) encoding {}", self.out.display());
                }
                let mut file = AtomicFile::create(&self.out, "--out")?;
                std::io::copy(&mut std::fs::File::open(&tmp_out)?, file.writer())?;
                file.finish()?;
            }
            Kind::Folder => {}
        }
        Ok(())
    }
}

/// Writes RGBA pixels as a PNG, atomically.
pub(crate) fn write_png(path: &Path, rgba: &[u8], w: u32, h: u32) -> Result<()> {
    let mut file = AtomicFile::create(path, "--out")?;
    image::codecs::png::PngEncoder::new(file.writer())
        .write_image(rgba, w, h, image::ExtendedColorType::Rgba8)
        .with_context(|| format!("encoding {} failed", path.display()))?;
    file.finish()
}
