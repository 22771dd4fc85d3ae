// The page: a flock stepped by the engine (WebAssembly, drawn by WebGL2; or
// WebGPU, stepped and drawn on the GPU), tuned from a lil-gui panel bound to
// the core's parameter table. Click sets the target, right click fires a
// pulse, shift+click selects a boid to take apart.

import { loadEngine, EngineError } from './engine.js';
import { loadGpuEngine, probeWebGpu } from './gpu-engine.js';
import { FlockRenderer, countLit } from './render.js';
import { buildPanel } from './panel.js';

const $ = (id) => document.getElementById(id);
const canvas = $('flock');
// WebGPU's canvas (a canvas has one kind of context): shown instead of the
// WebGL one while the GPU engine runs the flock.
const gpuCanvas = $('flock-gpu');
const overlay = $('overlay');
// Drawn on the CPU (willReadFrequently keeps the canvas in memory): where the
// 2D canvas is accelerated by a software GPU (SwiftShader), its dashed radius
// circles for 40 boids took 60 → 15 frames/s; on the CPU they cost nothing.
const overlayCtx = overlay.getContext('2d', { willReadFrequently: true });
// The pointer's surface: the whole window's canvas area (the overlay canvas
// covers only what it draws).
const surface = $('surface');
const scenery = $('scenery');
const sceneryCtx = scenery.getContext('2d');

const ui = {
  preset: new URLSearchParams(location.search).get('preset') || 'default',
  // Who steps the flock: 'auto' (WebGPU on a hardware adapter, else
  // WebAssembly), 'webgpu' or 'wasm'; ?engine= sets it.
  engine: new URLSearchParams(location.search).get('engine') || 'auto',
  paused: false,
  stepsPerFrame: 1,
  glow: true,
  // Who draws the boids: 'auto' (the CPU where WebGL is software), 'points'
  // (WebGL point sprites) or 'cpu' (the engine's picture); ?draw= sets it.
  drawing: new URLSearchParams(location.search).get('draw') || 'auto',
  debug: false,
  selected: -1,
  // Debug drawing: radii, velocity and rule forces of the boids nearest the
  // pointer.
  debugRadii: true,
  debugVelocity: true,
  debugForces: true,
  debugCount: 20,
  // Open-world presets: the view follows the flock.
  follow: true,
  // A phone's panel starts folded: the flock first.
  panelOpen: window.innerWidth > 600,
};
const stats = {
  frames: 0, fps: 0, stepMs: 0, stepsPerSecond: 0, drawMs: 0, boids: 0, polarization: 0, groups: 0, step: 0,
  metricsMainMs: 0, metricsMainMaxMs: 0, metricsWorkerMs: 0, metricsDone: 0,
};
// The engine running the flock: the WebAssembly one (`cpuEngine`) or the
// WebGPU one (`gpuEngine`, once loaded and chosen).
let engine = null;
let cpuEngine = null;
let gpuEngine = null;
// Why the flock is not on WebGPU, when it is not (the panel shows it).
let engineNote = '';
// The WebGPU engine's load in flight, and whether WebGPU refused the open
// flock (WebAssembly runs it until another preset).
let gpuLoading = null;
let gpuDeclined = false;
let renderer = null;
let state = null;
let gui = null;
let stepTimes = [];
let lastFps = performance.now();
let framesAtLastFps = 0;

// Messages: refusals from the core, shown until the next successful action.
function say(text, isError = true) {
  const bar = $('message');
  bar.textContent = text;
  bar.className = text ? (isError ? 'error' : 'info') : '';
}

// Calls the engine; shows a refusal instead of throwing. Returns undefined on error.
function tryCall(request) {
  try {
    return engine.call(request);
  } catch (e) {
    say(e instanceof EngineError ? e.message : `engine stopped: ${e.message}`);
    if (!(e instanceof EngineError)) crashed(e);
    return undefined;
  }
}

// A trap in the module (a bug, not bad input): stop the loop, offer a reload
// (on WebGPU: go on with the WebAssembly engine).
function crashed(e) {
  if (engine && engine.gpu && cpuEngine) {
    gpuFailed(engine, e.message);
    return;
  }
  setPaused(true);
  engine = null;
  say(`The engine stopped (${e.message}). Reset reloads it.`);
}

function open(preset, set = []) {
  const ok = tryCall({ op: 'open', preset, set });
  if (ok === undefined) return false;
  ui.preset = preset;
  reopened(engine.call({ op: 'state' }));
  // A flock WebGPU refused went to WebAssembly: another may go back.
  if (gpuDeclined && gpuEngine && engine === cpuEngine && wantsGpu(gpuEngine)) {
    gpuDeclined = false;
    useEngine(gpuEngine);
  }
  return true;
}

// A new flock (a preset opened, a count changed): the view fits its box, the
// panel is rebuilt for its species and fields.
function reopened(newState) {
  state = newState;
  ui.selected = -1;
  shapes = engine.call({ op: 'obstacles' });
  sceneryKey = '';
  renderer.zoom = 1;
  renderer.centre = null;
  stats.step = state.step;
  stats.boids = engine.count();
  renderer.setLooks(state.species);
  ui.follow = Boolean(state.open);
  stats.metricsMainMaxMs = 0;
  newMetricsEpoch();
  syncMirror();
  gui = buildPanel(app, gui);
  layout();
  say('', false);
  refreshMetrics();
}

// Pauses or resumes; the panel's button says what it will do.
function setPaused(paused) {
  ui.paused = paused;
  if (app.pauseButton) app.pauseButton.name(paused ? 'resume' : 'pause');
}

// The part of the canvas the panel does not cover: the world box is fitted
// into it (the canvas itself fills the window; the panel floats over it).
function layout() {
  if (!renderer || !state) return;
  const panel = $('panel').getBoundingClientRect();
  const open = gui && !gui._closed;
  const narrow = window.innerWidth <= 600;
  renderer.inset = {
    right: open && !narrow ? panel.width : 0,
    bottom: open && narrow ? panel.height : 0,
  };
  $('hud').style.right = `${renderer.inset.right + 10}px`;
  renderer.fit(state.min, state.max);
}

// What the panel needs from the page.
const app = {
  call: (request) => engine.call(request),
  tryCall,
  open,
  reopened,
  say,
  reset: () => reset(),
  stepOnce: (n) => stepOnce(n),
  setPaused,
  setDrawing: (d) => setDrawing(d),
  setEngine: (e) => setEngine(e),
  engineLabel: () => engineLabel(),
  ui,
  state: () => state,
  setState: (s) => {
    state = s;
    syncMirror();
  },
  get renderer() { return renderer; },
  pauseButton: null,
  // The panel's line saying which engine runs.
  engineNote: null,
};

function reset() {
  if (!engine) {
    start();
    return;
  }
  open(ui.preset);
}

function stepOnce(n) {
  if (!engine) return;
  const t0 = performance.now();
  try {
    stats.boids = engine.step(n);
  } catch (e) {
    crashed(e);
    return;
  }
  if (engine.gpu) {
    // Queued, not run: the GPU's pace shows as steps per second.
    stats.step = engine.stepIndex();
    return;
  }
  stepTimes.push((performance.now() - t0) / n);
  if (stepTimes.length > 60) stepTimes.shift();
  stats.step += n;
}

// WebGPU, when the browser has it and `ui.engine` allows: loaded after the
// first frame (the WebAssembly engine runs the flock meanwhile), then the
// flock moves over. `auto` keeps WebAssembly on a software adapter
// (SwiftShader), where the CPU engine is faster (BENCHMARKS.md).
async function startWebGpu() {
  if (ui.engine === 'wasm') return;
  // One load at a time (the panel may ask while the first is on its way).
  gpuLoading = gpuLoading || loadWebGpu();
  const loaded = await gpuLoading;
  gpuLoading = null;
  if (loaded && !gpuEngine) gpuEngine = loaded;
  if (gpuEngine && engine === cpuEngine && wantsGpu(gpuEngine)) useEngine(gpuEngine);
}

// The WebGPU engine, or null with `engineNote` saying why not.
async function loadWebGpu() {
  if (gpuEngine) return gpuEngine;
  const probe = await probeWebGpu();
  if (probe.missing) return noWebGpu(probe.missing);
  // Not fetched at all where `auto` would not use it.
  if (!wantsGpu(probe)) return null;
  try {
    return await loadGpuEngine(gpuCanvas, cpuEngine.module, probe);
  } catch (e) {
    return noWebGpu(e.message);
  }
}

// WebGPU is missing here: the note says why (and so does the message bar,
// when WebGPU was asked for); no engine.
function noWebGpu(why) {
  engineNote = `no WebGPU: ${why}`;
  if (ui.engine === 'webgpu') say(`WebGPU is not available here (${why}); the WebAssembly engine runs the flock.`, false);
  return null;
}

// Whether `ui.engine` wants the flock on `gpu` (an engine or a probe's
// answer: { adapter, software }); auto: not on a software adapter, and the
// note says so.
function wantsGpu(gpu) {
  if (ui.engine === 'wasm') return false;
  if (ui.engine === 'auto' && gpu.software) {
    engineNote = `WebGPU is software here (${gpu.adapter}): WebAssembly is faster`;
    return false;
  }
  return true;
}

// Chooses the engine ('auto', 'webgpu', 'wasm'; the panel's control).
function setEngine(choice) {
  ui.engine = ['auto', 'webgpu', 'wasm'].includes(choice) ? choice : 'auto';
  if (ui.engine === 'wasm' || (gpuEngine && !wantsGpu(gpuEngine))) {
    useEngine(cpuEngine);
  } else {
    startWebGpu();
  }
}

// Moves the flock to `next`: the same preset, overrides and tuning, opened
// afresh on it (the flock restarts from the preset's first step).
function useEngine(next) {
  if (!engine || !next || next === engine) return;
  let mirror = null;
  try {
    mirror = engine.call({ op: 'mirror' });
  } catch (e) {
    // An engine that trapped cannot say: the preset as the page knows it.
  }
  if (mirror) next.call({ op: 'adopt', ...mirror });
  else next.call({ op: 'open', preset: ui.preset });
  engine = next;
  const gpu = Boolean(next.gpu);
  gpuCanvas.style.visibility = gpu ? 'visible' : 'hidden';
  canvas.style.visibility = gpu ? 'hidden' : 'visible';
  if (gpu) engineNote = '';
  reopened(engine.call({ op: 'state' }));
}

// The GPU engine `failed` failed (the device was lost, a shader trapped):
// the flock goes on with the WebAssembly engine, its tuning kept.
function gpuFailed(failed, why) {
  if (gpuEngine === failed) gpuEngine = null;
  engineNote = `WebGPU failed: ${why}`;
  if (engine === failed) {
    try {
      useEngine(cpuEngine);
    } catch (e) {
      engine = cpuEngine;
      gpuCanvas.style.visibility = 'hidden';
      canvas.style.visibility = 'visible';
      open(ui.preset);
    }
    say(`WebGPU stopped (${why}); the WebAssembly engine runs the flock now.`);
  }
}

// The GPU backend refuses this flock (a feature it lacks, a size past the
// device's limits): WebAssembly runs it; the next preset may go back.
function gpuUnsupported(why) {
  gpuDeclined = true;
  useEngine(cpuEngine);
  engineNote = `WebGPU cannot run this flock: ${why}`;
  say(`${engineNote}; the WebAssembly engine runs it.`, false);
}

// Checks the GPU engine once a frame: a failure, a refused flock, or a build
// that never ends (a task that trapped) moves the flock to WebAssembly.
let busySince = null;
function watchGpu(now) {
  const gpu = engine;
  let why = null;
  try {
    why = gpu.failure;
    if (!why && gpu.unsupported) {
      gpuUnsupported(gpu.unsupported);
      return;
    }
    busySince = gpu.busy ? (busySince ?? now) : null;
    if (!why && busySince !== null && now - busySince > 30000) why = 'building the GPU flock took over 30 s';
  } catch (e) {
    why = e.message || String(e);
  }
  if (why) {
    busySince = null;
    gpuFailed(gpu, why);
  }
}

// Which engine runs the flock, for the stats line and the panel.
function engineLabel() {
  if (engine && engine.gpu) return `WebGPU (${engine.adapter}${engine.software ? ', software' : ''})`;
  return engineNote ? `WebAssembly (${engineNote})` : 'WebAssembly';
}

// Metrics come from a worker (metrics-worker.js) holding a mirror of the
// flock, given its positions and velocities: the frame pays only their copy. Without workers, the page measures
// them itself.
let metricsWorker = null;
let metricsBusy = false;

// Which flock the worker's answers are about: a reply sent for an earlier
// flock (before a preset or count change) is dropped, not shown.
let metricsEpoch = 0;

function startMetricsWorker() {
  stopMetricsWorker();
  try {
    metricsWorker = new Worker('metrics-worker.js', { type: 'module' });
    metricsWorker.onmessage = (e) => {
      metricsBusy = false;
      if (e.data.error) {
        // A worker that failed (a trap leaves its module unusable): the
        // page measures on its own from now on, and says why once.
        stopMetricsWorker();
        say(`metrics now measured in the page: ${e.data.error}`, false);
      } else if (e.data.epoch === metricsEpoch) {
        showMetrics(e.data.ok, e.data.ms);
      }
    };
    metricsWorker.onerror = () => stopMetricsWorker();
    metricsWorker.postMessage({ module: engine.module });
  } catch (e) {
    stopMetricsWorker();
  }
}

function stopMetricsWorker() {
  if (metricsWorker) metricsWorker.terminate();
  metricsWorker = null;
  metricsBusy = false;
}

function refreshMetrics() {
  if (!engine) return;
  if (metricsWorker) {
    if (metricsBusy) return;
    const t0 = performance.now();
    // On WebGPU: as of the last read-back (the frame loop asks for one).
    const kinematics = engine.kinematics(state.dimension);
    noteMetricsCost(performance.now() - t0);
    metricsBusy = true;
    metricsWorker.postMessage({ kinematics, epoch: metricsEpoch }, [kinematics.buffer]);
    return;
  }
  const t0 = performance.now();
  const m = tryCall({ op: 'metrics' });
  noteMetricsCost(performance.now() - t0);
  if (m) showMetrics(m, 0);
}

// The worker's mirror follows the flock's preset, counts and parameters.
function syncMirror() {
  if (metricsWorker && engine) metricsWorker.postMessage({ mirror: engine.call({ op: 'mirror' }) });
}

// A new flock: earlier answers no longer apply.
function newMetricsEpoch() {
  metricsEpoch++;
  metricsBusy = false;
  stats.polarization = 0;
  stats.groups = 0;
}

// Main-thread time spent on metrics: the last and the largest since the
// flock was opened (the browser test holds them to the step time).
function noteMetricsCost(ms) {
  stats.metricsMainMs = ms;
  stats.metricsMainMaxMs = Math.max(stats.metricsMainMaxMs, ms);
}

function showMetrics(m, workerMs) {
  stats.polarization = m.polarization;
  stats.groups = m.groups;
  stats.metricsWorkerMs = workerMs;
  stats.metricsDone++;
}

// World <-> overlay pixels (the overlay's y grows downward).
function toPixel(x, y) {
  const v = renderer.view;
  return [v.ox + (x - v.min[0]) * v.scale, v.h - (v.oy + (y - v.min[1]) * v.scale)];
}
function toWorld(px, py) {
  const v = renderer.view;
  return [v.min[0] + (px - v.ox) / v.scale, v.min[1] + (v.h - py - v.oy) / v.scale];
}

const FORCE_COLOURS = {
  separation: '#ff6b5a', alignment: '#6bff8a', cohesion: '#6bb8ff',
  boundary: '#bbbbbb', cruise: '#ffd25a', steering: '#ffffff',
};

// The obstacles, on their own layer: redrawn only when the view moves.
let shapes = [];
let sceneryKey = '';

function drawScenery() {
  const v = renderer.view;
  const key = `${v.w} ${v.h} ${v.scale} ${v.ox} ${v.oy} ${shapes.length}`;
  if (key === sceneryKey) return;
  sceneryKey = key;
  scenery.width = v.w;
  scenery.height = v.h;
  const g = sceneryCtx;
  g.fillStyle = 'rgba(70, 90, 130, 0.55)';
  g.strokeStyle = 'rgba(160, 190, 240, 0.8)';
  g.lineWidth = 1.5;
  for (const s of shapes) {
    g.beginPath();
    if (s.circle) {
      const [x, y, r] = s.circle;
      g.arc(...toPixel(x, y), r * v.scale, 0, 2 * Math.PI);
    } else if (s.box) {
      const [x, y, hx, hy] = s.box;
      const [px, py] = toPixel(x - hx, y + hy);
      g.rect(px, py, 2 * hx * v.scale, 2 * hy * v.scale);
    } else if (s.capsule) {
      const [ax, ay, bx, by, r] = s.capsule;
      const [pa, pb] = [toPixel(ax, ay), toPixel(bx, by)];
      const a = Math.atan2(pb[1] - pa[1], pb[0] - pa[0]);
      g.arc(pa[0], pa[1], r * v.scale, a + Math.PI / 2, a + 1.5 * Math.PI);
      g.arc(pb[0], pb[1], r * v.scale, a - Math.PI / 2, a + Math.PI / 2);
      g.closePath();
    } else if (s.polygon) {
      s.polygon.forEach((p, i) => (i ? g.lineTo(...toPixel(...p)) : g.moveTo(...toPixel(...p))));
      g.closePath();
    } else {
      continue; // a baked field: the boids show its shape
    }
    g.fill();
    g.stroke();
  }
}

// The overlay canvas covers only the rectangle its drawing touches (64-pixel
// steps) and is hidden when it draws nothing: a full-window one, drawn on the
// CPU, is a whole-window upload each frame (40 boids' debug drawing: 46–51
// frames/s at 200 boids, 40–43 at 10,000; this way 59–60, SwiftShader).
const OVERLAY_STEP = 64;
let overlayBox = null;
// The pointer over the canvas (CSS pixels), where the debug drawing looks.
let hover = null;

function drawOverlay() {
  const v = renderer.view;
  const ents = tryCall({ op: 'entities' });
  // The debug drawing: the boids nearest the pointer (the view's centre when
  // the pointer is elsewhere), or the selected one alone.
  const spot = hover ? toWorld(...hover) : toWorld(v.w / 2 - renderer.inset.right / 2, v.h / 2 - renderer.inset.bottom / 2);
  const flock = ui.debug && (ui.debugRadii || ui.debugVelocity || ui.debugForces)
    ? tryCall({ op: 'debug', x: spot[0], y: spot[1], n: ui.debugCount }) || []
    : [];
  // A shift-clicked boid is drawn whether or not the flock's drawing is on.
  const chosen = ui.selected >= 0 ? tryCall({ op: 'inspect', id: ui.selected }) : null;
  if (ui.selected >= 0 && !chosen) ui.selected = -1;
  stats.debugDrawn = flock.length;
  const paint = (g) => paintOverlay(g, ents || { attractors: [], pulses: [] }, flock, chosen);
  // Where the drawing lands, measured by drawing it once into an Extent.
  const extent = new Extent();
  paint(extent);
  const box = extent.snapped(OVERLAY_STEP, v.w, v.h);
  if (!box) {
    if (overlayBox) {
      overlayCtx.setTransform(1, 0, 0, 1, 0, 0);
      overlayCtx.clearRect(0, 0, overlay.width, overlay.height);
      overlay.style.display = 'none';
    }
    overlayBox = null;
    return;
  }
  const [x, y, w, h] = box;
  if (!overlayBox) overlay.style.display = 'block';
  if (!overlayBox || overlayBox[2] !== w || overlayBox[3] !== h) {
    overlay.width = w;
    overlay.height = h;
    overlay.style.width = `${w}px`;
    overlay.style.height = `${h}px`;
  }
  if (!overlayBox || overlayBox[0] !== x || overlayBox[1] !== y) overlay.style.transform = `translate(${x}px, ${y}px)`;
  overlayBox = box;
  overlayCtx.setTransform(1, 0, 0, 1, 0, 0);
  overlayCtx.clearRect(0, 0, w, h);
  overlayCtx.setTransform(1, 0, 0, 1, -x, -y);
  paint(overlayCtx);
}

// The overlay's drawing into `g` (a 2D context, or an Extent that measures
// it): the targets, the pulses, the debug drawing of `flock` and of `chosen`.
function paintOverlay(g, ents, flock, chosen) {
  const v = renderer.view;
  g.lineWidth = 1.5;
  for (const a of ents.attractors) {
    const [x, y] = toPixel(...a.position);
    g.strokeStyle = 'rgba(255, 230, 150, 0.9)';
    g.beginPath();
    g.arc(x, y, Math.max(6, a.radius * v.scale), 0, 2 * Math.PI);
    g.stroke();
    g.beginPath();
    g.arc(x, y, 3, 0, 2 * Math.PI);
    g.stroke();
  }
  for (const p of ents.pulses) {
    const [x, y] = toPixel(...p.position);
    g.strokeStyle = `rgba(255, 140, 220, ${p.fade})`;
    g.beginPath();
    g.arc(x, y, p.radius * v.scale * (1.2 - 0.4 * p.fade), 0, 2 * Math.PI);
    g.stroke();
  }
  for (const b of flock) drawBoidDebug(g, b, 0.55);
  if (chosen) {
    drawBoidDebug(g, chosen, 1);
    drawLegend(g, chosen);
  }
}

// Stands in for a 2D context and records the pixels a drawing would touch
// (with a margin for line widths and arrowheads).
class Extent {
  constructor() {
    this.box = [Infinity, Infinity, -Infinity, -Infinity];
  }

  add(x, y, r = 0) {
    if (!(Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(r))) return;
    const b = this.box, p = r + 8;
    b[0] = Math.min(b[0], x - p);
    b[1] = Math.min(b[1], y - p);
    b[2] = Math.max(b[2], x + p);
    b[3] = Math.max(b[3], y + p);
  }

  moveTo(x, y) { this.add(x, y); }
  lineTo(x, y) { this.add(x, y); }
  arc(x, y, r) { this.add(x, y, r); }
  fillRect(x, y, w, h) { this.add(x, y); this.add(x + w, y + h); }
  fillText(text, x, y) { this.add(x, y - 14); this.add(x + 9 * text.length, y + 4); }
  beginPath() {}
  closePath() {}
  stroke() {}
  fill() {}
  setLineDash() {}

  // [x, y, width, height] in `step`-pixel steps within a w × h canvas, or
  // null when nothing was drawn there.
  snapped(step, w, h) {
    const [x0, y0, x1, y1] = this.box;
    const left = Math.max(0, Math.floor(x0 / step) * step);
    const top = Math.max(0, Math.floor(y0 / step) * step);
    const right = Math.min(w, Math.ceil(x1 / step) * step);
    const bottom = Math.min(h, Math.ceil(y1 / step) * step);
    return right > left && bottom > top ? [left, top, right - left, bottom - top] : null;
  }
}

// One boid's debug drawing, at `alpha`: its separation (red, dashed) and
// perception (blue) circles, its velocity (white) and each rule's force in
// the rule's colour. Lines keep their pixel width at any zoom; arrows have a
// least length so a slow boid's still shows.
function drawBoidDebug(g, b, alpha) {
  const v = renderer.view;
  const [x, y] = toPixel(...b.position);
  g.globalAlpha = alpha;
  g.lineWidth = 1.25;
  if (ui.debugRadii) {
    g.setLineDash([4, 4]);
    g.strokeStyle = 'rgba(255, 110, 90, 0.9)';
    g.beginPath();
    g.arc(x, y, Math.max(2, b.separation_radius * v.scale), 0, 2 * Math.PI);
    g.stroke();
    g.setLineDash([]);
    g.strokeStyle = 'rgba(120, 200, 255, 0.7)';
    g.beginPath();
    g.arc(x, y, Math.max(3, b.perception_radius * v.scale), 0, 2 * Math.PI);
    g.stroke();
  }
  // Arrows: max_force spans the perception circle (at least 24 px).
  const span = Math.max(24, b.perception_radius * v.scale);
  if (ui.debugForces) {
    const reach = span / Math.max(b.max_force, 1e-9);
    for (const [rule, f] of Object.entries(b.forces)) {
      if (rule === 'steering') continue;
      const len = Math.hypot(f[0], f[1]);
      if (len <= 0) continue;
      g.strokeStyle = g.fillStyle = FORCE_COLOURS[rule];
      arrow(g, x, y, x + f[0] * reach, y - f[1] * reach);
    }
  }
  if (ui.debugVelocity) {
    const speed = Math.hypot(b.velocity[0], b.velocity[1]);
    if (speed > 0) {
      const len = Math.max(10, span * 0.75);
      g.strokeStyle = g.fillStyle = '#ffffff';
      arrow(g, x, y, x + (b.velocity[0] / speed) * len, y - (b.velocity[1] / speed) * len);
    }
  }
  g.globalAlpha = 1;
}

// The selected boid's numbers in a box in the overlay's top-left corner (not
// on the flock), with a line to the boid.
function drawLegend(g, b) {
  const [x, y] = toPixel(...b.position);
  const rows = [[`boid ${b.id}: ${b.neighbours} neighbours`, '#ffffff']];
  for (const [rule, f] of Object.entries(b.forces)) {
    rows.push([`${rule} ${Math.hypot(f[0], f[1]).toPrecision(3)}`, FORCE_COLOURS[rule]]);
  }
  const top = window.innerWidth <= 600 ? 48 : 10;
  g.font = '12px system-ui, sans-serif';
  g.fillStyle = 'rgba(8, 10, 18, 0.8)';
  g.fillRect(10, top, 190, 16 * rows.length + 8);
  g.strokeStyle = 'rgba(255, 255, 255, 0.35)';
  g.lineWidth = 1;
  g.beginPath();
  g.moveTo(200, top + 8);
  g.lineTo(x, y);
  g.stroke();
  rows.forEach(([text, colour], i) => {
    g.fillStyle = colour;
    g.fillText(text, 18, top + 18 + 16 * i);
  });
}

function arrow(g, x0, y0, x1, y1) {
  const a = Math.atan2(y1 - y0, x1 - x0);
  g.beginPath();
  g.moveTo(x0, y0);
  g.lineTo(x1, y1);
  g.stroke();
  g.beginPath();
  g.moveTo(x1, y1);
  g.lineTo(x1 - 7 * Math.cos(a - 0.4), y1 - 7 * Math.sin(a - 0.4));
  g.lineTo(x1 - 7 * Math.cos(a + 0.4), y1 - 7 * Math.sin(a + 0.4));
  g.closePath();
  g.fill();
}

function median(xs) {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

// Where WebGL is software, flocks larger than this are drawn on the CPU: a
// point costs SwiftShader about 1 µs, the CPU's picture a fixed 4–5 ms
// (BENCHMARKS.md, 2026-12-06 evening) ...
const CPU_PICTURE_FROM = 4000;
// ... while their sprites are at most this many pixels (half-size): the
// module's stamps stop there (splat.rs, MAX_HALF_PIXELS).
const CPU_PICTURE_MAX_HALF = 48;
// The largest sprite's half-size on screen (pixels), as last drawn.
let spritePixels = 0;

// Chooses who draws the boids ('auto', 'points' or 'cpu'); the next frame
// applies it.
function setDrawing(drawing) {
  ui.drawing = ['auto', 'points', 'cpu'].includes(drawing) ? drawing : 'auto';
  chooseDrawing(engine ? engine.count() : 0);
  renderer.setLooks(state ? state.species : []);
}

// The drawing for a flock of `n` boids, as `ui.drawing` asks.
function chooseDrawing(n) {
  const cpu = ui.drawing === 'cpu' || (ui.drawing === 'auto' && renderer.software
    && n > CPU_PICTURE_FROM && spritePixels <= CPU_PICTURE_MAX_HALF);
  renderer.mode = cpu ? 'cpu' : 'points';
}

// Who draws the boids, for the stats line.
function drawnBy() {
  if (engine && engine.gpu) return 'drawn by WebGPU';
  return renderer.mode === 'cpu'
    ? `drawn on the CPU${renderer.software ? ' (WebGL is software here)' : ''}`
    : 'drawn by WebGL';
}

function showStats() {
  const seconds = state ? stats.step * state.dt : 0;
  // The engine's name only: the panel says why WebGPU is not used.
  const simulation = engine && engine.gpu
    ? `WebGPU ${stats.stepsPerSecond.toFixed(0)} steps/s`
    : `WebAssembly ${stats.stepMs.toFixed(2)} ms/step`;
  if (app.engineNote) app.engineNote.textContent = `running: ${engineLabel()}`;
  $('stats').textContent =
    `${stats.fps.toFixed(0)} fps · ${stats.boids} boids · ${simulation} · ` +
    `${drawnBy()} ${stats.drawMs.toFixed(2)} ms · polarization ${stats.polarization.toFixed(2)} · groups ${stats.groups} · ` +
    `${stats.step} steps (${seconds.toFixed(1)} s)${ui.paused ? ' · paused' : ''}`;
}

// On WebGPU the world is read back every this many frames (every other one
// while boids are inspected or debug-drawn): positions for the follow camera,
// the metrics and the overlays; the boids themselves are drawn from the GPU.
const SYNC_FRAMES = 15;
let lastStepIndex = 0;

function frame() {
  requestAnimationFrame(frame);
  if (!engine || !renderer) return;
  if (engine.gpu) watchGpu(performance.now());
  if (!ui.paused) stepOnce(ui.stepsPerFrame);
  if (!engine) return;
  const t0 = performance.now();
  const gpu = Boolean(engine.gpu);
  if (gpu && stats.frames % (ui.debug || ui.selected >= 0 ? 2 : SYNC_FRAMES) === 0) {
    const synced = engine;
    synced.sync().catch((e) => gpuFailed(synced, e.message || String(e)));
  }
  const following = state.open && ui.follow;
  const instances = !gpu || following ? engine.instances() : null;
  if (following) follow(instances);
  const v = renderer.fit(state.min, state.max);
  // Sprites shrink as the flock grows (a 2,000-boid flock's arrows cover as
  // much of the view as 10,000 smaller ones), capped for small flocks, and
  // never under 2.5 pixels.
  const side = Math.min(state.max[0] - state.min[0], state.max[1] - state.min[1]);
  const size = Math.max(side * Math.min(0.012, 0.36 / Math.sqrt(Math.max(stats.boids, 1))), 2.5 / v.scale);
  spritePixels = size * v.scale * Math.max(1, ...renderer.scales.slice(0, state.species.length));
  if (gpu) {
    if (gpuCanvas.width !== v.w || gpuCanvas.height !== v.h) {
      gpuCanvas.width = v.w;
      gpuCanvas.height = v.h;
    }
    try {
      engine.draw(v, size, ui.glow);
    } catch (e) {
      gpuFailed(engine, e.message || String(e));
      return;
    }
    for (const [resolve, rect] of litRequests.splice(0)) resolve(canvasLitPixels(gpuCanvas, rect));
  } else {
    chooseDrawing(instances.length / 4);
    renderer.draw(instances, size);
    for (const [resolve, rect] of litRequests.splice(0)) resolve(renderer.litPixels(rect));
  }
  drawScenery();
  drawOverlay();
  stats.drawMs = performance.now() - t0;
  stats.frames++;
  if (stats.frames === 1) performance.mark('first-frame');
  const now = performance.now();
  if (now - lastFps >= 1000) {
    stats.fps = ((stats.frames - framesAtLastFps) * 1000) / (now - lastFps);
    stats.stepsPerSecond = (Math.max(0, stats.step - lastStepIndex) * 1000) / (now - lastFps);
    lastStepIndex = stats.step;
    framesAtLastFps = stats.frames;
    lastFps = now;
    stats.stepMs = median(stepTimes);
    refreshMetrics();
  }
  if (stats.frames % 15 === 0) showStats();
}

// The camera of an open world (boids may leave the box: the roost, unbounded
// skies) glides after the flock: its centre to the centroid, and out (never
// in past the box's fit) until the flock's spread, three RMS radii, fits.
const FOLLOW_RATE = 0.06; // of the gap closed per frame
function follow(instances) {
  const n = instances.length / 4;
  if (!n) return;
  let sx = 0, sy = 0;
  for (let i = 0; i < instances.length; i += 4) {
    sx += instances[i];
    sy += instances[i + 1];
  }
  const cx = sx / n, cy = sy / n;
  let r2 = 0;
  for (let i = 0; i < instances.length; i += 4) {
    const dx = instances[i] - cx, dy = instances[i + 1] - cy;
    r2 += dx * dx + dy * dy;
  }
  const spread = 3 * Math.sqrt(r2 / n);
  const v = renderer.view || renderer.fit(state.min, state.max);
  const c = renderer.centre ?? [(state.min[0] + state.max[0]) / 2, (state.min[1] + state.max[1]) / 2];
  renderer.centre = [c[0] + (cx - c[0]) * FOLLOW_RATE, c[1] + (cy - c[1]) * FOLLOW_RATE];
  // Half the free view's shorter side, in world units at zoom 1.
  const half = (Math.min(v.w - renderer.inset.right, v.h - renderer.inset.bottom) / 2) / (v.scale / renderer.zoom);
  const want = Math.min(1, half / Math.max(spread, 1e-6));
  renderer.zoom += (Math.max(0.05, want) - renderer.zoom) * FOLLOW_RATE;
}

// Pixels of `source` (a canvas just drawn, before it is presented) brighter
// than a dim grey, in the whole canvas or in `rect` ([x, y, w, h], CSS pixels
// from the top left): WebGPU's canvas is read through a 2D copy.
let litCanvas = null;
function canvasLitPixels(source, rect = null) {
  const [x, y, w, h] = rect ? rect.map((r) => Math.max(0, r | 0)) : [0, 0, source.width, source.height];
  if (!w || !h) return 0;
  litCanvas = litCanvas || document.createElement('canvas');
  litCanvas.width = w;
  litCanvas.height = h;
  const g = litCanvas.getContext('2d', { willReadFrequently: true });
  g.drawImage(source, x, y, w, h, 0, 0, w, h);
  return countLit(g.getImageData(0, 0, w, h).data);
}

// Requests for the bright-pixel count of the next frame (tests: the canvas is
// read right after drawing, as WebGL keeps no copy of a presented frame).
const litRequests = [];

function pointer(e) {
  const r = surface.getBoundingClientRect();
  return toWorld(e.clientX - r.left, e.clientY - r.top);
}

// The pointer's target: a click sets it, a click on it (or Esc) takes it away.
function clickTarget(e) {
  const [x, y] = pointer(e);
  const ents = tryCall({ op: 'entities' });
  const t = ents && ents.attractors.find((a) => a.pointer);
  if (t) {
    const [px, py] = toPixel(...t.position);
    const r = surface.getBoundingClientRect();
    const reach = Math.max(12, Math.min(t.radius * renderer.view.scale, 40));
    if (Math.hypot(e.clientX - r.left - px, e.clientY - r.top - py) <= reach) {
      clearTarget();
      return;
    }
  }
  if (tryCall({ op: 'target', x, y }) !== undefined) say('target set: click it or press Esc to let the flock go', false);
}

function clearTarget() {
  if (tryCall({ op: 'clear_target' })) say('target cleared', false);
}

// Zoom by `factor` about the overlay point (px, py) in CSS pixels: 1x shows
// the whole box, up to 50x.
function zoomAbout(factor, px, py) {
  const before = toWorld(px, py);
  renderer.zoom = Math.min(50, Math.max(state.open ? 0.05 : 1, renderer.zoom * factor));
  const v = renderer.fit(state.min, state.max);
  const after = toWorld(px, py);
  const c = renderer.centre ?? [(v.min[0] + v.max[0]) / 2, (v.min[1] + v.max[1]) / 2];
  renderer.centre = renderer.zoom === 1 ? null : [c[0] + before[0] - after[0], c[1] + before[1] - after[1]];
  renderer.fit(state.min, state.max);
}

// Moves the view so that world point `from` lies under overlay point (px, py).
function panTo(from, px, py) {
  const here = toWorld(px, py);
  const v = renderer.view;
  const c = renderer.centre ?? [(v.min[0] + v.max[0]) / 2, (v.min[1] + v.max[1]) / 2];
  renderer.centre = [c[0] + from[0] - here[0], c[1] + from[1] - here[1]];
  renderer.fit(state.min, state.max);
}

surface.addEventListener('contextmenu', (e) => e.preventDefault());
surface.addEventListener('wheel', (e) => {
  if (!state || !renderer) return;
  e.preventDefault();
  const r = surface.getBoundingClientRect();
  ui.follow = false;
  zoomAbout(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
}, { passive: false });

// Mouse and touch through pointer events. Mouse: left click target, right
// click pulse, shift+click inspect, middle drag pan. Touch: a tap sets the
// target (a tap on it clears it), a one-finger drag moves it, two fingers
// pinch-zoom and pan; after a pinch nothing happens until every finger is up.
const touches = new Map();
let panFrom = null;
let pinch = null;
let gesture = null; // one touch: { x, y, dragging, pinched }
const TAP_SLOP = 10; // CSS pixels a tap may wander

surface.addEventListener('pointerdown', (e) => {
  if (!engine || !renderer) return;
  surface.setPointerCapture(e.pointerId);
  if (e.pointerType === 'touch') {
    touches.set(e.pointerId, [e.clientX, e.clientY]);
    if (touches.size === 1) gesture = { x: e.clientX, y: e.clientY, dragging: false, pinched: false };
    if (touches.size === 2) {
      pinch = pinchState();
      if (gesture) gesture.pinched = true;
    }
    return;
  }
  const [x, y] = pointer(e);
  if (e.button === 1) {
    e.preventDefault();
    ui.follow = false;
    panFrom = [x, y];
  } else if (e.button === 2) {
    if (tryCall({ op: 'pulse', x, y }) !== undefined) say('pulse', false);
  } else if (e.shiftKey) {
    const id = tryCall({ op: 'pick', x, y });
    if (id !== undefined && id !== null) ui.selected = id;
  } else if (e.button === 0) {
    clickTarget(e);
  }
});
surface.addEventListener('pointermove', (e) => {
  if (!state || !renderer) return;
  const r = surface.getBoundingClientRect();
  if (e.pointerType === 'touch' && touches.has(e.pointerId)) {
    touches.set(e.pointerId, [e.clientX, e.clientY]);
    if (touches.size === 2 && pinch) {
      ui.follow = false;
      const now = pinchState();
      zoomAbout(now.span / pinch.span, now.x - r.left, now.y - r.top);
      panTo(toWorld(pinch.x - r.left, pinch.y - r.top), now.x - r.left, now.y - r.top);
      pinch = pinchState();
    } else if (touches.size === 1 && gesture && !gesture.pinched) {
      if (Math.hypot(e.clientX - gesture.x, e.clientY - gesture.y) > TAP_SLOP) gesture.dragging = true;
      if (gesture.dragging) {
        const [x, y] = pointer(e);
        tryCall({ op: 'target', x, y });
      }
    }
    return;
  }
  if (e.pointerType === 'mouse') hover = [e.clientX - r.left, e.clientY - r.top];
  if (panFrom) panTo(panFrom, e.clientX - r.left, e.clientY - r.top);
});
surface.addEventListener('pointerleave', () => { hover = null; });
const release = (e) => {
  if (e.pointerType === 'touch' && touches.has(e.pointerId)) {
    touches.delete(e.pointerId);
    if (touches.size < 2) pinch = null;
    if (touches.size === 0) {
      // A tap: one finger, barely moved, never part of a pinch.
      if (gesture && !gesture.dragging && !gesture.pinched && e.type === 'pointerup') clickTarget(e);
      gesture = null;
    }
  }
  panFrom = null;
};
surface.addEventListener('pointerup', release);
surface.addEventListener('pointercancel', release);

// The two touches' midpoint and distance.
function pinchState() {
  const [[ax, ay], [bx, by]] = [...touches.values()];
  return { x: (ax + bx) / 2, y: (ay + by) / 2, span: Math.max(1, Math.hypot(ax - bx, ay - by)) };
}

window.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT') return;
  if (e.key === ' ') {
    e.preventDefault();
    setPaused(!ui.paused);
  }
  if (e.key === '.') { setPaused(true); stepOnce(1); }
  if (e.key === 'r') reset();
  if (e.key === 'Escape') {
    ui.selected = -1;
    if (engine) clearTarget();
  }
  if (e.key === 'f' && renderer) {
    renderer.zoom = 1;
    renderer.centre = null;
    ui.follow = Boolean(state && state.open);
  }
});
window.addEventListener('resize', () => layout());
// The panel's size changes as folders open and close (lil-gui animates them).
new ResizeObserver(() => layout()).observe($('panel'));

async function start() {
  if (!renderer) {
    try {
      renderer = new FlockRenderer(canvas);
    } catch (e) {
      // Nothing to draw with: say so once and stop (no frame loop errors).
      $('stats').textContent = '';
      say(`${e.message}: the page cannot draw the flock here. A current Chrome, Edge, Firefox or Safari has it; \`murmuration play\` runs the same flock in a window.`);
      document.body.dataset.ready = 'no-webgl2';
      return;
    }
  }
  try {
    cpuEngine = await loadEngine('murmuration.wasm');
    engine = cpuEngine;
    // Marks on the way to the first frame (the browser test reports them).
    performance.mark('engine-loaded');
    renderer.cpu = (view, size, glow) => cpuEngine.splat(view, size, glow);
    renderer.cpuLooks = (palette, scales) => cpuEngine.splatLooks(palette, scales);
    setDrawing(ui.drawing);
    startMetricsWorker();
    if (!open(ui.preset)) open('default');
    performance.mark('flock-open');
    setPaused(false);
    $('stats').textContent = '';
    document.body.dataset.ready = '1';
    // After the first frame and the page's load: WebGPU's module is larger
    // than the CPU's, and the probe waits on the browser's GPU process.
    const later = () => requestAnimationFrame(() => startWebGpu());
    if (document.readyState === 'complete') later();
    else window.addEventListener('load', later, { once: true });
  } catch (e) {
    $('stats').textContent = '';
    say(`cannot start: ${e.message}`);
  }
}

// For scripts and tests: the engine's requests, the live figures, the UI state.
window.murmuration = {
  call: (request) => engine.call(request),
  count: () => (engine ? engine.count() : 0),
  // Which engine runs the flock ('webgpu' or 'wasm'), both engines (the GPU
  // one once loaded), and the choice.
  get engine() { return engine && engine.gpu ? 'webgpu' : 'wasm'; },
  get engines() { return { cpu: cpuEngine, gpu: gpuEngine }; },
  engineLabel: () => engineLabel(),
  setEngine: (choice) => setEngine(choice),
  litPixels: (rect = null) => new Promise((resolve) => litRequests.push([resolve, rect])),
  instances: () => (engine ? engine.instances().slice() : []),
  toPixel: (x, y) => toPixel(x, y),
  get renderer() { return renderer; },
  open,
  reopened: (s) => reopened(s),
  setPaused,
  setDrawing,
  stats,
  ui,
  get state() { return state; },
  get gui() { return gui; },
  get view() { return renderer && renderer.view; },
};

requestAnimationFrame(frame);
start();
