//! The swarm's sound in the window: the samples `murmuration_game::sound`
//! synthesises each fixed step, queued for the audio device (cpal, with the
//! `audio` feature) and resampled to its rate, or else piped to a system sound
//! player (pw-cat, pacat or aplay), so the default build has sound wherever
//! one is installed. With neither the game plays silent and says why once.

use murmuration_game::sound::SAMPLE_RATE;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Most queued sound, seconds: the device lags the game by at most this much
/// (a stalled device drops the oldest samples instead of growing the queue).
const MAX_LATENCY: f64 = 0.15;

/// Samples from the game on their way to the device: filled by the game loop,
/// drained by the device's callback, resampled from [`SAMPLE_RATE`] to the
/// device's rate by linear interpolation.
#[cfg_attr(
    not(feature = "audio"),
    allow(
        dead_code,
        reason = "the device's callback, built with the `audio` feature, reads it"
    )
)]
#[derive(Debug)]
pub struct Queue {
    samples: VecDeque<f32>,
    /// Source samples per device sample.
    ratio: f64,
    /// Position between the first two queued samples, in [0, 1).
    at: f64,
    cap: usize,
}

#[cfg_attr(
    not(feature = "audio"),
    allow(
        dead_code,
        reason = "the device's callback, built with the `audio` feature, reads it"
    )
)]
impl Queue {
    /// A queue feeding a device at `device_rate` Hz.
    pub fn new(device_rate: u32) -> Self {
        Self {
            samples: VecDeque::new(),
            ratio: f64::from(SAMPLE_RATE) / f64::from(device_rate.max(1)),
            at: 0.0,
            cap: (f64::from(SAMPLE_RATE) * MAX_LATENCY) as usize,
        }
    }

    /// Queues one step's samples, dropping the oldest beyond the latency cap.
    pub fn push(&mut self, samples: &[f32]) {
        self.samples.extend(samples);
        let over = self.samples.len().saturating_sub(self.cap);
        self.samples.drain(..over);
    }

    /// The next device sample: silence when the game has given none (paused,
    /// a menu, or a stall).
    pub fn next(&mut self) -> f32 {
        let (Some(&a), Some(&b)) = (self.samples.front(), self.samples.get(1)) else {
            return 0.0;
        };
        let s = a + (b - a) * self.at as f32;
        self.at += self.ratio;
        while self.at >= 1.0 && self.samples.len() > 1 {
            self.samples.pop_front();
            self.at -= 1.0;
        }
        s
    }

    /// Source samples waiting.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.samples.len()
    }
}

/// Where the game's sound goes: a device stream, a system sound player, or
/// nowhere (with the reason).
pub struct Output {
    queue: Arc<Mutex<Queue>>,
    #[cfg(feature = "audio")]
    _stream: Option<cpal::Stream>,
    player: Option<pipe::Player>,
}

impl Output {
    /// Opens the default output device (with the `audio` feature), else the
    /// first system sound player that starts ([`pipe::PLAYERS`]), or says why
    /// the game is silent. `MURMURATION_SOUND=off` keeps it silent.
    pub fn open() -> (Self, Result<String, String>) {
        if std::env::var("MURMURATION_SOUND").is_ok_and(|v| v == "off") {
            return (Self::silent(), Err("MURMURATION_SOUND=off".into()));
        }
        #[cfg(feature = "audio")]
        let device_failed = match device::open() {
            Ok((stream, queue, name)) => {
                return (
                    Self {
                        queue,
                        _stream: Some(stream),
                        player: None,
                    },
                    Ok(name),
                );
            }
            Err(why) => why,
        };
        #[cfg(not(feature = "audio"))]
        let device_failed = "this build has no audio output (build with `--features audio`, which needs libasound2-dev on Linux)".to_string();
        match pipe::open(pipe::PLAYERS) {
            Ok(player) => {
                let name = player.name.clone();
                let mut out = Self::silent();
                out.player = Some(player);
                (out, Ok(name))
            }
            Err(none) => (Self::silent(), Err(format!("{device_failed}; {none}"))),
        }
    }

    /// The title screen's line about sound: where it plays, or why it does
    /// not and how to turn it on.
    pub fn title_line(opened: &Result<String, String>) -> String {
        match opened {
            Ok(device) => format!("Sound: playing on {device}."),
            Err(why) if cfg!(feature = "audio") || why.starts_with("MURMURATION_SOUND") => {
                format!("Sound is off: {why}.")
            }
            Err(_) => "Sound is off: no sound player (pw-cat, pacat or aplay) started. \
                 Install one, or build with sound: cargo run --release --features audio -- game \
                 (on Linux it needs libasound2-dev)."
                .into(),
        }
    }

    fn silent() -> Self {
        Self {
            queue: Arc::new(Mutex::new(Queue::new(SAMPLE_RATE))),
            #[cfg(feature = "audio")]
            _stream: None,
            player: None,
        }
    }

    /// Whether a device or player plays what is pushed (the game skips
    /// synthesis when not).
    pub fn live(&self) -> bool {
        #[cfg(feature = "audio")]
        if self._stream.is_some() {
            return true;
        }
        self.player.is_some()
    }

    /// Queues one step's samples for the device or player.
    pub fn push(&self, samples: &[f32]) {
        if let Some(p) = &self.player {
            p.push(samples);
        } else if let Ok(mut q) = self.queue.lock() {
            q.push(samples);
        }
    }
}

/// Sound in the default build, with no library to link: a system sound player
/// fed raw 32-bit float samples at [`SAMPLE_RATE`] on its standard input.
mod pipe {
    use super::MAX_LATENCY;
    use std::io::Write;
    use std::process::{Child, Command, Stdio};
    use std::sync::mpsc::{SyncSender, sync_channel};

    /// The players tried, in order: PipeWire's, PulseAudio's, ALSA's. Each
    /// reads mono little-endian f32 at 44.1 kHz from standard input.
    pub const PLAYERS: &[(&str, &[&str])] = &[
        (
            "pw-cat",
            &[
                "--playback",
                "--format",
                "f32",
                "--rate",
                "44100",
                "--channels",
                "1",
                "--latency",
                "50ms",
                "-",
            ],
        ),
        (
            "pacat",
            &[
                "--playback",
                "--raw",
                "--format=float32le",
                "--rate=44100",
                "--channels=1",
                "--latency-msec=50",
            ],
        ),
        (
            "aplay",
            &[
                "-q",
                "-t",
                "raw",
                "-f",
                "FLOAT_LE",
                "-r",
                "44100",
                "-c",
                "1",
                "--buffer-time=80000",
            ],
        ),
    ];

    /// A running player and the channel to the thread that writes to it.
    pub struct Player {
        /// The player's command name.
        pub name: String,
        child: Child,
        tx: Option<SyncSender<Vec<f32>>>,
        writer: Option<std::thread::JoinHandle<()>>,
    }

    /// The first of `players` that starts and is still running a moment later
    /// (one with no sound server or device exits at once), or why none did.
    pub fn open(players: &[(&str, &[&str])]) -> Result<Player, String> {
        let mut tried = Vec::new();
        for &(name, args) in players {
            let spawned = Command::new(name)
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn();
            let Ok(mut child) = spawned else {
                tried.push(format!("{name}: not found"));
                continue;
            };
            std::thread::sleep(std::time::Duration::from_millis(150));
            if let Ok(Some(status)) = child.try_wait() {
                tried.push(format!("{name}: exited ({status})"));
                continue;
            }
            let Some(mut stdin) = child.stdin.take() else {
                let _ = child.kill();
                continue;
            };
            // At most MAX_LATENCY of steps wait for the player; more are
            // dropped, so a stalled player never delays the game.
            let steps = (MAX_LATENCY * 60.0).ceil() as usize;
            let (tx, rx) = sync_channel::<Vec<f32>>(steps.max(1));
            let writer = std::thread::spawn(move || {
                let mut bytes = Vec::new();
                for samples in rx {
                    bytes.clear();
                    bytes.extend(samples.iter().flat_map(|s| s.to_le_bytes()));
                    if stdin.write_all(&bytes).is_err() {
                        break;
                    }
                }
            });
            return Ok(Player {
                name: name.to_string(),
                child,
                tx: Some(tx),
                writer: Some(writer),
            });
        }
        Err(format!("no sound player started ({})", tried.join(", ")))
    }

    impl Player {
        /// Sends one step's samples, or drops them when the player lags.
        pub fn push(&self, samples: &[f32]) {
            if let Some(tx) = &self.tx {
                let _ = tx.try_send(samples.to_vec());
            }
        }
    }

    impl Drop for Player {
        /// Closes the player's input (it plays what it has, then ends) and
        /// waits a moment for it; kills it if it lingers.
        fn drop(&mut self) {
            self.tx = None;
            if let Some(w) = self.writer.take() {
                let _ = w.join();
            }
            for _ in 0..20 {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A player that is missing or exits at once is skipped; the first
        /// that runs gets every sample, in order, as little-endian f32.
        #[test]
        fn samples_reach_the_first_player_that_starts() {
            let dir = std::env::temp_dir().join(format!("murmuration-pipe-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let out = dir.join("played.raw");
            let script = format!("cat > '{}'", out.display());
            let players: &[(&str, &[&str])] = &[
                ("murmuration-no-such-player", &[]),
                ("false", &[]),
                ("sh", &["-c", &script]),
            ];
            let p = open(players).unwrap();
            assert_eq!(p.name, "sh");
            p.push(&[0.5, -0.25]);
            p.push(&[1.0]);
            drop(p);
            let bytes = std::fs::read(&out).unwrap();
            let got: Vec<f32> = bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            assert_eq!(got, [0.5, -0.25, 1.0]);
            let _ = std::fs::remove_dir_all(&dir);
        }

        /// With no player at all the reason names each one tried.
        #[test]
        fn no_player_says_what_was_tried() {
            let Err(why) = open(&[("murmuration-no-such-player", &[]), ("false", &[])]) else {
                panic!("a player started");
            };
            assert!(
                why.contains("murmuration-no-such-player: not found"),
                "{why}"
            );
            assert!(why.contains("false: exited"), "{why}");
        }
    }
}

#[cfg(feature = "audio")]
mod device {
    use super::Queue;
    use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
    use cpal::{FromSample, SampleFormat, SizedSample, StreamConfig};
    use std::sync::{Arc, Mutex};

    /// The default device's stream, its queue and its name.
    pub fn open() -> Result<(cpal::Stream, Arc<Mutex<Queue>>, String), String> {
        let host = cpal::default_host();
        let device = host
            .default_output_device()
            .ok_or("no audio output device")?;
        let name = device
            .id()
            .map_or_else(|_| "the default output".to_string(), |id| id.to_string());
        let config = device
            .default_output_config()
            .map_err(|e| format!("{name}: {e}"))?;
        let format = config.sample_format();
        let config: StreamConfig = config.into();
        let queue = Arc::new(Mutex::new(Queue::new(config.sample_rate)));
        let stream = match format {
            SampleFormat::F32 => build::<f32>(&device, config, &queue),
            SampleFormat::I16 => build::<i16>(&device, config, &queue),
            SampleFormat::U16 => build::<u16>(&device, config, &queue),
            SampleFormat::I32 => build::<i32>(&device, config, &queue),
            other => Err(format!("sample format {other} is not supported")),
        }
        .map_err(|e| format!("{name}: {e}"))?;
        stream.play().map_err(|e| format!("{name}: {e}"))?;
        Ok((stream, queue, name))
    }

    fn build<T: SizedSample + FromSample<f32>>(
        device: &cpal::Device,
        config: StreamConfig,
        queue: &Arc<Mutex<Queue>>,
    ) -> Result<cpal::Stream, String> {
        let channels = usize::from(config.channels.max(1));
        let queue = Arc::clone(queue);
        device
            .build_output_stream(
                config,
                move |data: &mut [T], _: &cpal::OutputCallbackInfo| {
                    let mut q = queue.lock().ok();
                    for frame in data.chunks_mut(channels) {
                        let s = q.as_mut().map_or(0.0, |q| q.next());
                        frame.fill(T::from_sample(s));
                    }
                },
                // A device error mid-game (unplugged, an underrun) leaves the
                // game running; it is said on stderr, not in the window.
                |e| eprintln!("sound: {e}"),
                None,
            )
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_resamples_to_the_device_rate_and_is_silent_when_empty() {
        // A ramp at 44.1 kHz read at 88.2 kHz: every source sample and the
        // midpoints between them.
        let mut q = Queue::new(2 * SAMPLE_RATE);
        assert_eq!(q.next(), 0.0, "silent before the game gives any sound");
        q.push(&[0.0, 1.0, 2.0, 3.0]);
        let out: Vec<f32> = (0..6).map(|_| q.next()).collect();
        assert_eq!(out, [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]);
        // At 48 kHz a second of sound takes a second of device samples.
        let mut q = Queue::new(48_000);
        q.push(&vec![0.25; SAMPLE_RATE as usize / 10]);
        let mut played = 0;
        while q.len() > 1 {
            q.next();
            played += 1;
        }
        assert!(
            (4790..=4810).contains(&played),
            "{played} device samples for 0.1 s"
        );
    }

    #[test]
    fn a_stalled_device_keeps_only_the_newest_sound() {
        let mut q = Queue::new(SAMPLE_RATE);
        for step in 0..600 {
            q.push(&vec![step as f32; 735]);
        }
        assert!(q.len() <= (f64::from(SAMPLE_RATE) * MAX_LATENCY) as usize);
        // 0.15 s is 6,615 samples, nine steps of 735: steps 591 to 599 are left.
        assert_eq!(q.next(), 591.0, "the oldest were dropped");
    }

    /// The title says where the sound plays, or how to turn it on.
    #[test]
    fn the_title_says_how_to_turn_the_sound_on() {
        let playing = Output::title_line(&Ok("default".into()));
        assert_eq!(playing, "Sound: playing on default.");
        let off = Output::title_line(&Err("no output device".into()));
        if cfg!(feature = "audio") {
            assert_eq!(off, "Sound is off: no output device.");
        } else {
            assert!(off.contains("--features audio"), "{off}");
        }
    }
}
