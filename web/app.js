// The page: a flock stepped by the engine (WebAssembly), drawn by WebGL2, tuned
// from a lil-gui panel bound to the core's parameter table. Click sets the
// target, right click fires a pulse, shift+click selects a boid to take apart.

import GUI from './vendor/lil-gui.esm.min.js';
import { loadEngine, EngineError } from './engine.js';
import { FlockRenderer, SPECIES_CSS } from './render.js';

const $ = (id) => document.getElementById(id);
const canvas = $('flock');
const overlay = $('overlay');
const ctx = overlay.getContext('2d');
const scenery = $('scenery');
const sceneryCtx = scenery.getContext('2d');

const ui = {
  preset: new URLSearchParams(location.search).get('preset') || 'default',
  paused: false,
  stepsPerFrame: 1,
  glow: true,
  debug: true,
  selected: -1,
};
const stats = { frames: 0, fps: 0, stepMs: 0, drawMs: 0, boids: 0, polarization: 0, groups: 0, step: 0 };
let engine = null;
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

// A trap in the module (a bug, not bad input): stop the loop, offer a reload.
function crashed(e) {
  ui.paused = true;
  engine = null;
  say(`The engine stopped (${e.message}). Reset reloads it.`);
}

function open(preset, set = []) {
  const ok = tryCall({ op: 'open', preset, set });
  if (ok === undefined) return false;
  ui.preset = preset;
  ui.selected = -1;
  state = engine.call({ op: 'state' });
  shapes = engine.call({ op: 'obstacles' });
  sceneryKey = '';
  renderer.zoom = 1;
  renderer.centre = null;
  renderer.fit(state.min, state.max);
  buildPanel();
  say('', false);
  refreshMetrics();
  return true;
}

// The panel: run controls, the preset, counts, then one folder per species with
// a slider per row of the core's field table (its ranges, its labels).
function buildPanel() {
  if (gui) gui.destroy();
  gui = new GUI({ title: 'Murmuration', container: $('panel') });
  const presets = engine.call({ op: 'presets' });
  const run = {
    preset: ui.preset,
    pause: () => { ui.paused = !ui.paused; pauseButton.name(ui.paused ? 'resume' : 'pause'); },
    step: () => { ui.paused = true; pauseButton.name('resume'); stepOnce(1); },
    reset: () => reset(),
  };
  gui.add(run, 'preset', presets.map((p) => p.name)).name('preset').onChange((name) => {
    if (!open(name)) run.preset = ui.preset;
  });
  const pauseButton = gui.add(run, 'pause').name(ui.paused ? 'resume' : 'pause');
  gui.add(run, 'step').name('step once');
  gui.add(run, 'reset');
  gui.add(ui, 'stepsPerFrame', 1, 8, 1).name('steps per frame');
  gui.add(ui, 'glow').onChange((g) => { renderer.glow = g ? 1 : 0; });
  gui.add(ui, 'debug').name('debug drawing');
  const counts = gui.addFolder('boids');
  const want = {};
  state.species.forEach((s) => {
    want[s.name] = s.count;
    numberField(counts.add(want, s.name, 0, 20000, 1), (text) => {
      // Refused counts (NaN, negative, absurd) leave the flock as it was.
      const set = state.species.map((t) => `species.${t.name}.count=${t.name === s.name ? text : want[t.name]}`);
      const was = state.species.map((t) => t.count);
      if (open(ui.preset, set)) return true;
      state.species.forEach((t, i) => { want[t.name] = was[i]; });
      return false;
    }, false);
  });
  state.species.forEach((s, i) => speciesFolder(s, i));
}

// A number controller whose typed text goes to the core as written (so NaN or
// an out-of-range value is refused with the core's message, not silently
// clamped); `apply(text)` returns true when accepted.
function numberField(ctrl, apply, live = true) {
  // Keep lil-gui from applying (and clamping) partial typing: the capture
  // listener on the row stops 'input' before it reaches the field's own.
  ctrl.domElement.addEventListener('input', (e) => {
    if (e.target === ctrl.$input) e.stopPropagation();
  }, true);
  ctrl.$input.addEventListener('change', () => {
    const text = ctrl.$input.value;
    if (apply(text)) ctrl.object[ctrl.property] = Number(text);
    ctrl.updateDisplay();
  });
  // The slider's own changes are within range: apply them as numbers (while
  // dragging, or once released for changes that rebuild the flock).
  const applyNumber = (v) => apply(String(v));
  if (live) ctrl.onChange(applyNumber);
  else ctrl.onFinishChange(applyNumber);
  return ctrl;
}

function speciesFolder(s, index) {
  const folder = gui.addFolder(`${s.name} (${s.count})`);
  folder.domElement.style.setProperty('--title-text-color', SPECIES_CSS[index % 8]);
  const values = { ...s.values, steering: s.steering, combine: s.combine, topological_neighbours: s.topological_neighbours };
  const set = (key) => (text) => {
    const answer = tryCall({ op: 'set', species: index, key, value: String(text) });
    if (answer === undefined) {
      values[key] = state.species[index].values[key] ?? state.species[index][key];
      folder.controllersRecursive().forEach((c) => c.updateDisplay());
      return false;
    }
    state = answer;
    say(`${s.name}.${key} = ${text}`, false);
    return true;
  };
  folder.add(values, 'steering', state.steering_modes).onChange(set('steering'));
  folder.add(values, 'combine', state.combine_modes).onChange(set('combine'));
  numberField(folder.add(values, 'topological_neighbours', 0, 64, 1).name('topological k'), set('topological_neighbours'));
  const behaviours = folder.addFolder('behaviours');
  behaviours.close();
  for (const f of state.fields) {
    const [lo, hi] = sliderRange(f, s);
    const target = f.group === 'rules' ? folder : behaviours;
    const c = target.add(values, f.key, lo, hi).name(f.label);
    c.domElement.title = `${f.meaning} ${f.range} ${f.unit}`;
    numberField(c, set(f.key));
  }
}

// Log-scale fields span decades (a radius in (0, 10000]): the slider covers a
// tenth to ten times the preset's value, the text box takes anything valid.
function sliderRange(f, s) {
  let [lo, hi] = s.ranges[f.key];
  const v = s.values[f.key];
  if (f.log && v > 0) {
    lo = Math.max(lo, v / 10);
    hi = Math.min(hi, v * 10);
  }
  return [lo, Math.max(hi, lo)];
}

function reset() {
  if (!engine) {
    start();
    return;
  }
  open(ui.preset);
}

function stepOnce(n) {
  const t0 = performance.now();
  try {
    stats.boids = engine.step(n);
  } catch (e) {
    crashed(e);
    return;
  }
  stepTimes.push((performance.now() - t0) / n);
  if (stepTimes.length > 60) stepTimes.shift();
  stats.step += n;
}

function refreshMetrics() {
  const m = tryCall({ op: 'metrics' });
  if (!m) return;
  stats.polarization = m.polarization;
  stats.groups = m.groups;
  stats.boids = m.count;
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

// The overlay is redrawn only while it shows something: an untouched 2D canvas
// costs the compositor nothing, a cleared one a full upload per frame.
let overlayDrawn = false;

function drawOverlay() {
  const v = renderer.view;
  const ents = ui.debug ? tryCall({ op: 'entities' }) : null;
  const busy = ents && (ents.attractors.length || ents.pulses.length || ui.selected >= 0);
  if (!busy && !overlayDrawn) return;
  if (overlay.width !== v.w || overlay.height !== v.h) {
    overlay.width = v.w;
    overlay.height = v.h;
  }
  ctx.clearRect(0, 0, v.w, v.h);
  overlayDrawn = Boolean(busy);
  if (!busy) return;
  ctx.lineWidth = 1.5;
  for (const a of ents.attractors) {
    const [x, y] = toPixel(...a.position);
    ctx.strokeStyle = 'rgba(255, 230, 150, 0.9)';
    ctx.beginPath();
    ctx.arc(x, y, Math.max(4, a.radius * v.scale), 0, 2 * Math.PI);
    ctx.stroke();
  }
  for (const p of ents.pulses) {
    const [x, y] = toPixel(...p.position);
    ctx.strokeStyle = `rgba(255, 140, 220, ${p.fade})`;
    ctx.beginPath();
    ctx.arc(x, y, p.radius * v.scale * (1.2 - 0.4 * p.fade), 0, 2 * Math.PI);
    ctx.stroke();
  }
  if (ui.selected < 0) return;
  const b = tryCall({ op: 'inspect', id: ui.selected });
  if (!b) {
    ui.selected = -1;
    return;
  }
  const [x, y] = toPixel(...b.position);
  ctx.setLineDash([4, 4]);
  ctx.strokeStyle = 'rgba(255, 110, 90, 0.9)';
  ctx.beginPath();
  ctx.arc(x, y, b.separation_radius * v.scale, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.strokeStyle = 'rgba(120, 200, 255, 0.8)';
  ctx.beginPath();
  ctx.arc(x, y, b.perception_radius * v.scale, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.setLineDash([]);
  // One arrow per rule: max_force reaches the perception circle.
  const reach = (b.perception_radius * v.scale) / Math.max(b.max_force, 1e-9);
  let row = 0;
  for (const [rule, f] of Object.entries(b.forces)) {
    const len = Math.hypot(f[0], f[1]);
    ctx.strokeStyle = ctx.fillStyle = FORCE_COLOURS[rule];
    ctx.lineWidth = rule === 'steering' ? 2.5 : 2;
    if (len > 0) arrow(x, y, x + f[0] * reach, y - f[1] * reach);
    ctx.font = '12px system-ui, sans-serif';
    ctx.fillText(`${rule} ${len.toPrecision(3)}`, x + 14, y + 16 + 14 * row++);
  }
  ctx.fillStyle = '#ffffff';
  ctx.fillText(`boid ${b.id}: ${b.neighbours} neighbours`, x + 14, y + 2);
}

function arrow(x0, y0, x1, y1) {
  const a = Math.atan2(y1 - y0, x1 - x0);
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.stroke();
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - 8 * Math.cos(a - 0.4), y1 - 8 * Math.sin(a - 0.4));
  ctx.lineTo(x1 - 8 * Math.cos(a + 0.4), y1 - 8 * Math.sin(a + 0.4));
  ctx.closePath();
  ctx.fill();
}

function median(xs) {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function showStats() {
  $('stats').textContent =
    `${stats.fps.toFixed(0)} fps · step ${stats.stepMs.toFixed(2)} ms · draw ${stats.drawMs.toFixed(2)} ms · ` +
    `${stats.boids} boids · polarization ${stats.polarization.toFixed(2)} · groups ${stats.groups} · step ${stats.step}`;
}

function frame() {
  requestAnimationFrame(frame);
  if (!engine) return;
  if (!ui.paused) stepOnce(ui.stepsPerFrame);
  if (!engine) return;
  const t0 = performance.now();
  renderer.fit(state.min, state.max);
  // Sprites shrink as the flock grows (a 2,000-boid flock's arrows cover as
  // much of the view as 10,000 smaller ones), capped for small flocks.
  const side = Math.min(state.max[0] - state.min[0], state.max[1] - state.min[1]);
  const size = side * Math.min(0.012, 0.36 / Math.sqrt(Math.max(stats.boids, 1)));
  renderer.draw(engine.instances(), size);
  if (litRequests.length) {
    const lit = renderer.litPixels();
    litRequests.splice(0).forEach((resolve) => resolve(lit));
  }
  drawScenery();
  drawOverlay();
  stats.drawMs = performance.now() - t0;
  stats.frames++;
  const now = performance.now();
  if (now - lastFps >= 1000) {
    stats.fps = ((stats.frames - framesAtLastFps) * 1000) / (now - lastFps);
    framesAtLastFps = stats.frames;
    lastFps = now;
    stats.stepMs = median(stepTimes);
    refreshMetrics();
  }
  if (stats.frames % 15 === 0) showStats();
}

// Requests for the bright-pixel count of the next frame (tests: the canvas is
// read right after drawing, as WebGL keeps no copy of a presented frame).
const litRequests = [];

function pointer(e) {
  const r = overlay.getBoundingClientRect();
  return toWorld(e.clientX - r.left, e.clientY - r.top);
}

overlay.addEventListener('contextmenu', (e) => e.preventDefault());
// The wheel zooms about the pointer (1x: the whole box, up to 50x); a middle-
// button drag pans; `f` fits the box again.
overlay.addEventListener('wheel', (e) => {
  if (!state) return;
  e.preventDefault();
  const before = pointer(e);
  renderer.zoom = Math.min(50, Math.max(1, renderer.zoom * Math.exp(-e.deltaY * 0.0015)));
  const v = renderer.fit(state.min, state.max);
  const after = pointer(e);
  const c = renderer.centre ?? [(v.min[0] + v.max[0]) / 2, (v.min[1] + v.max[1]) / 2];
  renderer.centre = renderer.zoom === 1 ? null : [c[0] + before[0] - after[0], c[1] + before[1] - after[1]];
}, { passive: false });
let panFrom = null;
overlay.addEventListener('mousemove', (e) => {
  if (!panFrom || !state) return;
  const here = pointer(e);
  const v = renderer.view;
  const c = renderer.centre ?? [(v.min[0] + v.max[0]) / 2, (v.min[1] + v.max[1]) / 2];
  renderer.centre = [c[0] + panFrom[0] - here[0], c[1] + panFrom[1] - here[1]];
  renderer.fit(state.min, state.max);
});
window.addEventListener('mouseup', () => { panFrom = null; });
overlay.addEventListener('mousedown', (e) => {
  if (!engine) return;
  const [x, y] = pointer(e);
  if (e.button === 1) {
    e.preventDefault();
    panFrom = [x, y];
    return;
  }
  if (e.button === 2) {
    if (tryCall({ op: 'pulse', x, y }) !== undefined) say('pulse', false);
  } else if (e.shiftKey) {
    const id = tryCall({ op: 'pick', x, y });
    if (id !== undefined && id !== null) ui.selected = id;
  } else if (e.button === 0) {
    if (tryCall({ op: 'target', x, y }) !== undefined) say('', false);
  }
});
window.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'INPUT') return;
  if (e.key === ' ') ui.paused = !ui.paused;
  if (e.key === '.') { ui.paused = true; stepOnce(1); }
  if (e.key === 'r') reset();
  if (e.key === 'f') {
    renderer.zoom = 1;
    renderer.centre = null;
  }
});

async function start() {
  try {
    engine = await loadEngine('murmuration.wasm');
    if (!renderer) renderer = new FlockRenderer(canvas);
    if (!open(ui.preset)) open('default');
    ui.paused = false;
    if (ui.selected < 0) ui.selected = 0;
    document.body.dataset.ready = '1';
  } catch (e) {
    say(`cannot start: ${e.message}`);
  }
}

// For scripts and tests: the engine's requests, the live figures, the UI state.
window.murmuration = {
  call: (request) => engine.call(request),
  count: () => (engine ? engine.count() : 0),
  litPixels: () => new Promise((resolve) => litRequests.push(resolve)),
  open,
  stats,
  ui,
  get state() { return state; },
  get gui() { return gui; },
};

requestAnimationFrame(frame);
start();
