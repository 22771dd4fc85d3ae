//! The swarm's sound in the window: the samples `murmuration_game::sound`
//! synthesises each fixed step, queued for the audio device (cpal, with the
//! `audio` feature) and resampled to its rate. Without the feature, or with no
//! device, the game plays silent and says why once.

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

/// Where the game's sound goes: a device stream, or nowhere (with the reason).
pub struct Output {
    queue: Arc<Mutex<Queue>>,
    #[cfg(feature = "audio")]
    _stream: Option<cpal::Stream>,
}

impl Output {
    /// Opens the default output device, or says why the game is silent.
    pub fn open() -> (Self, Result<String, String>) {
        #[cfg(feature = "audio")]
        {
            match device::open() {
                Ok((stream, queue, name)) => (
                    Self {
                        queue,
                        _stream: Some(stream),
                    },
                    Ok(name),
                ),
                Err(why) => (Self::silent(), Err(why)),
            }
        }
        #[cfg(not(feature = "audio"))]
        {
            (
                Self::silent(),
                Err("this build has no audio output (build with `--features audio`, which needs libasound2-dev on Linux)".into()),
            )
        }
    }

    /// The title screen's line about sound: where it plays, or why it does
    /// not and how to turn it on.
    pub fn title_line(opened: &Result<String, String>) -> String {
        match opened {
            Ok(device) => format!("Sound: playing on {device}."),
            Err(why) if cfg!(feature = "audio") => format!("Sound is off: {why}."),
            Err(_) => "Sound is off in this build. For sound: cargo run --release --features audio -- game \
                 (on Linux it needs libasound2-dev)."
                .into(),
        }
    }

    fn silent() -> Self {
        Self {
            queue: Arc::new(Mutex::new(Queue::new(SAMPLE_RATE))),
            #[cfg(feature = "audio")]
            _stream: None,
        }
    }

    /// Whether a device plays what is pushed (the game skips synthesis when not).
    pub fn live(&self) -> bool {
        #[cfg(feature = "audio")]
        {
            self._stream.is_some()
        }
        #[cfg(not(feature = "audio"))]
        {
            false
        }
    }

    /// Queues one step's samples for the device.
    pub fn push(&self, samples: &[f32]) {
        if let Ok(mut q) = self.queue.lock() {
            q.push(samples);
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
