// The page's panel (lil-gui), bound to the core's parameter table: run controls
// and the preset first; then one folder per species leading with the
// essentials (count, the three rules' weights and radii, speed, force, field
// of view) and the rest folded under "advanced". The core decides which fields
// a world uses (banked flight only in 3D) and words every refusal; the panel
// shows the core's message and keeps the value that stands.

import GUI from './vendor/lil-gui.esm.min.js';

// `app`: { call, tryCall, open, say, reset, stepOnce, setPaused, setEngine,
// engineLabel, ui, state(),
// setState(s), renderer }. The page re-lays itself out when the panel's size
// changes (a ResizeObserver), folding included.
export function buildPanel(app, gui) {
  if (gui) gui.destroy();
  const state = app.state();
  gui = new GUI({ title: 'Murmuration', container: document.getElementById('panel') });
  if (!app.ui.panelOpen) gui.close();
  gui.onOpenClose(() => {
    app.ui.panelOpen = !gui._closed;
  });
  const presets = app.call({ op: 'presets' });
  const run = {
    preset: app.ui.preset,
    pause: () => app.setPaused(!app.ui.paused),
    step: () => { app.setPaused(true); app.stepOnce(1); },
    reset: () => app.reset(),
  };
  const names = Object.fromEntries(presets.map((p) => [`${p.name} (${p.dimension}D, ${p.boids} boids)`, p.name]));
  const presetField = gui.add(run, 'preset', names).name('preset').onChange((name) => {
    if (!app.open(name)) run.preset = app.ui.preset;
  });
  presetField.domElement.title = presets.find((p) => p.name === app.ui.preset)?.description ?? '';
  const pauseButton = gui.add(run, 'pause');
  app.pauseButton = pauseButton;
  app.setPaused(app.ui.paused);
  gui.add(run, 'step').name('advance one step');
  gui.add(run, 'reset').name('restart');
  gui.add(app.ui, 'stepsPerFrame', 1, 8, 1).name('steps per frame');
  gui.add(app.ui, 'glow').onChange((g) => { app.renderer.glow = g ? 1 : 0; });
  const engine = gui.add(app.ui, 'engine', { 'auto': 'auto', 'WebGPU': 'webgpu', 'WebAssembly': 'wasm' })
    .name('engine').onChange((e) => app.setEngine(e));
  engine.domElement.title = 'auto steps and draws on the GPU through WebGPU where the browser has a hardware adapter, else with the WebAssembly engine on the CPU.';
  // The page keeps it current (showStats).
  app.engineNote = note(engine, `running: ${app.engineLabel()}`);
  const drawing = gui.add(app.ui, 'drawing', { 'auto': 'auto', 'WebGL points': 'points', 'CPU picture': 'cpu' })
    .name('drawn by').onChange((d) => app.setDrawing(d));
  drawing.domElement.title = 'auto draws on the CPU where WebGL is software (SwiftShader, llvmpipe), where each point costs about 1 µs.';
  const debug = gui.addFolder('debug drawing');
  if (!app.ui.debug) debug.close();
  debug.add(app.ui, 'debug').name('show');
  debug.add(app.ui, 'debugRadii').name('radii');
  debug.add(app.ui, 'debugVelocity').name('velocity');
  debug.add(app.ui, 'debugForces').name('rule forces');
  const near = debug.add(app.ui, 'debugCount', 1, 1000, 1).name('boids drawn');
  near.domElement.title = 'The boids nearest the pointer (or the view\'s centre) get their radii and arrows; shift+click one for its numbers.';
  if (state.open) {
    gui.add(app.ui, 'follow').name('follow the flock').listen();
  }
  state.species.forEach((s, i) => speciesFolder(app, gui, s, i));
  return gui;
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

// A line of explanation under a controller.
function note(ctrl, text) {
  const div = document.createElement('div');
  div.className = 'note';
  div.textContent = text;
  ctrl.domElement.after(div);
  return div;
}

function speciesFolder(app, gui, s, index) {
  const state = app.state();
  const folder = gui.addFolder(s.name);
  folder.domElement.style.setProperty('--title-text-color', app.renderer.css(index));
  if (index > 0 && state.species.length > 2) folder.close();
  const values = { ...s.values, count: s.count, steering: s.steering, combine: s.combine, topological_neighbours: s.topological_neighbours };
  const refresh = () => folder.controllersRecursive().forEach((c) => c.updateDisplay());
  const set = (key) => (text) => {
    const answer = app.tryCall({ op: 'set', species: index, key, value: String(text) });
    if (answer === undefined) {
      const now = app.state().species[index];
      values[key] = now.values[key] ?? now[key];
      refresh();
      return false;
    }
    app.setState(answer);
    app.say('', false);
    return true;
  };

  // The count rebuilds the flock (and rebuilds this panel).
  const count = folder.add(values, 'count', 0, state.max_boids, 1).name('count');
  numberField(count, (text) => {
    const answer = app.tryCall({ op: 'count', species: index, value: String(text) });
    if (answer === undefined) {
      values.count = app.state().species[index].count;
      refresh();
      return false;
    }
    app.reopened(answer);
    return true;
  }, false);
  note(count, state.resize === null
    ? 'the world grows with the count: the preset\'s density stays'
    : `the world keeps its size: ${state.resize}`);

  const fields = state.fields;
  const slider = (target, f) => {
    const [lo, hi] = sliderRange(f, s);
    const c = target.add(values, f.key, lo, hi).name(f.label);
    c.domElement.title = `${f.meaning} ${f.range} ${f.unit}`;
    numberField(c, set(f.key));
  };
  fields.filter((f) => f.group === 'essentials').forEach((f) => slider(folder, f));

  const advanced = folder.addFolder('advanced');
  advanced.close();
  fields.filter((f) => f.group === 'motion' || f.group === 'flight').forEach((f) => slider(advanced, f));
  const modes = (list) => Object.fromEntries(list.map((m) => [m.label, m.key]));
  advanced.add(values, 'steering', modes(state.steering_modes)).name('steering').onChange(set('steering'));
  advanced.add(values, 'combine', modes(state.combine_modes)).name('forces').onChange(set('combine'));
  const k = advanced.add(values, 'topological_neighbours', 0, 64, 1).name('nearest neighbours');
  k.domElement.title = 'Each boid heeds this many nearest neighbours, however far (starlings: 7); 0 heeds every neighbour within the radii.';
  numberField(k, set('topological_neighbours'));
  const behaviours = advanced.addFolder('behaviours');
  behaviours.close();
  fields.filter((f) => f.group === 'behaviours').forEach((f) => slider(behaviours, f));
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
