// The page in headless Chromium (puppeteer-core drives /usr/bin/chromium).
//
//   node web/tests/browser.mjs URL [--expect PRESET:STEPS:DIGEST]... [--screenshot FILE.png]
//   node web/tests/browser.mjs URL --bench      (frame rates for BENCHMARKS.md;
//     MURMURATION_WEB_BENCH_ENGINE=webgpu: the WebGPU engine, Chromium's WebGPU on)
//
// The test opens the served page, waits for frames, checks the canvas is not
// blank and the boids moved, changes a parameter through the panel and sees it
// take effect, types NaN and an absurd count and sees each refused with a
// visible message while the page keeps running, and compares the page's
// digests with the native ones given by --expect. Exit 1 on any failure.

import puppeteer from 'puppeteer-core';

const args = process.argv.slice(2);
const url = args[0];
const expects = [];
let screenshot = null;
let bench = false;
for (let i = 1; i < args.length; i++) {
  if (args[i] === '--expect') expects.push(args[++i].split(':'));
  else if (args[i] === '--screenshot') screenshot = args[++i];
  else if (args[i] === '--bench') bench = true;
  else throw new Error(`unknown argument ${args[i]}`);
}
if (!url) throw new Error('usage: browser.mjs URL [--expect PRESET:STEPS:DIGEST]... [--screenshot F] [--bench]');

const executablePath = process.env.MURMURATION_CHROMIUM || '/usr/bin/chromium';
const benchGpu = bench && process.env.MURMURATION_WEB_BENCH_ENGINE === 'webgpu';
// Chromium's WebGPU: SwiftShader here (a software adapter), with these flags.
const WEBGPU_FLAGS = ['--no-sandbox', '--enable-unsafe-webgpu', '--enable-features=Vulkan',
  '--use-vulkan=swiftshader', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

const browser = await puppeteer.launch({
  executablePath,
  headless: true,
  args: benchGpu ? WEBGPU_FLAGS : ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  defaultViewport: { width: 1280, height: 800 },
});

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  // Requests still open, named if the page does not come up.
  const open = new Map();
  page.on('request', (r) => open.set(r, Date.now()));
  for (const done of ['requestfinished', 'requestfailed']) page.on(done, (r) => open.delete(r));
  try {
    await page.goto(benchGpu ? `${url.replace(/\/?$/, '/')}?engine=webgpu` : url, { waitUntil: 'domcontentloaded', timeout: 90000 });
    await page.waitForFunction(() => document.body.dataset.ready === '1', { timeout: 60000 });
  } catch (e) {
    const waiting = [...open].map(([r, t]) => `${r.url()} (${Date.now() - t} ms)`).join(', ');
    throw new Error(`the page did not come up (${e.message}); requests still open: ${waiting || 'none'}`);
  }
  await page.waitForFunction(() => document.body.dataset.ready === '1' && window.murmuration.stats.frames > 30, { timeout: 60000 });
  if (benchGpu) await page.waitForFunction(() => window.murmuration.engine === 'webgpu', { timeout: 120000 });

  const frames = () => page.evaluate(() => window.murmuration.stats.frames);
  const message = () => page.$eval('#message', (e) => ({ text: e.textContent, cls: e.className }));
  const waitFrames = async (n) => {
    const f0 = await frames();
    await page.waitForFunction((f) => window.murmuration.stats.frames >= f, { timeout: 30000 }, f0 + n);
  };

  // The module comes compressed (Brotli with a whole-file window: 7.4 MB →
  // 0.73 MB; gzip's 32 KiB window gets 1.81 MB).
  const served = await page.evaluate(async () => {
    const r = await fetch('murmuration.wasm');
    const bytes = (await r.arrayBuffer()).byteLength;
    return { encoding: r.headers.get('content-encoding'), bytes };
  });
  check(served.encoding === 'br', `the module is served Brotli-compressed (${served.encoding}; ${served.bytes} bytes unpacked)`);

  if (bench) {
    await runBench(page, waitFrames);
  } else {
    // The canvas is not blank: bright pixels where the boids are.
    const lit = await page.evaluate(() => window.murmuration.litPixels());
    check(lit > 1000, `the canvas shows the flock (${lit} bright pixels)`);

    // The boids move.
    const where = () => page.evaluate(() => window.murmuration.call({ op: 'pick', x: 50, y: 50 }));
    const snap = () => page.evaluate(() => window.murmuration.call({ op: 'inspect', id: 0 }).position);
    const p0 = await snap();
    await waitFrames(20);
    const p1 = await snap();
    const moved = Math.hypot(p1[0] - p0[0], p1[1] - p0[1]);
    check(moved > 0.1, `boid 0 moved ${moved.toFixed(2)} units in 20 frames`);
    check((await where()) !== null, 'pick finds a boid');

    // A parameter changed through the panel takes effect: max speed 1.0.
    const field = async (label) => {
      const handles = await page.$$('.lil-gui .lil-controller');
      for (const h of handles) {
        const name = await h.$eval('.lil-name', (e) => e.textContent).catch(() => '');
        if (name === label) return h;
      }
      throw new Error(`no panel field ${label}`);
    };
    const typeInto = async (label, text) => {
      const input = await (await field(label)).$('input');
      await input.click({ clickCount: 3 });
      await input.type(text);
      await input.press('Enter');
    };
    await typeInto('max speed', '1');
    await waitFrames(90);
    const st = await page.evaluate(() => window.murmuration.call({ op: 'state' }).species[0].values.max_speed);
    check(st === 1, `the panel set max speed (now ${st})`);
    const m = await page.evaluate(() => window.murmuration.call({ op: 'metrics' }));
    check(m.mean_speed <= 1.0 + 1e-3, `the flock slowed to max speed 1 (mean speed ${m.mean_speed.toFixed(3)})`);

    // NaN typed into a field: refused with a visible message; nothing changes; frames go on.
    await typeInto('max speed', 'NaN');
    let msg = await message();
    check(msg.cls === 'error' && msg.text.includes('boids: max speed') && !msg.text.includes('species['),
      `NaN refused in the panel's words: "${msg.text}"`);
    const still = await page.evaluate(() => window.murmuration.call({ op: 'state' }).species[0].values.max_speed);
    check(still === 1, `max speed kept its value (${still})`);
    const shown = await (await field('max speed')).$eval('input', (e) => e.value);
    check(Number(shown) === 1, `the field shows the kept value (${shown})`);
    await waitFrames(10);

    // An absurd count: refused, the flock as it was.
    const before = await page.evaluate(() => window.murmuration.stats.boids);
    await typeInto('count', '1000000000');
    msg = await message();
    check(msg.cls === 'error' && msg.text.includes('more than the page steps'), `absurd count refused: "${msg.text}"`);
    await waitFrames(10);
    const after = await page.evaluate(() => window.murmuration.count());
    check(after === before, `the flock kept its ${before} boids (${after})`);
    const visible = await page.$eval('#message', (e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
    });
    check(visible, 'the message is visible');

    // Click sets a target; right click fires a pulse.
    await page.mouse.click(300, 300);
    await page.mouse.click(500, 400, { button: 'right' });
    const ents = await page.evaluate(() => window.murmuration.call({ op: 'entities' }));
    check(ents.attractors.length === 1 && ents.pulses.length === 1, `click and right click made a target and a pulse (${JSON.stringify(ents)})`);
    // A click on the target lets the flock go; so does Esc.
    const targets = () => page.evaluate(() => window.murmuration.call({ op: 'entities' }).attractors.length);
    await page.mouse.click(301, 301);
    check((await targets()) === 0, 'a click on the target takes it away');
    await page.mouse.click(300, 300);
    check((await targets()) === 1, 'a click sets the target again');
    await page.keyboard.press('Escape');
    check((await targets()) === 0, 'Esc takes the target away');

    await checkPanel(page, field, typeInto, waitFrames);
    await checkMetricsOffTheFrame(page);
    await checkTargetSpacing(page);
    await checkDebugDrawing(page, waitFrames);
    await checkDrawing(page, waitFrames);
    await checkCameraAndLooks(page, waitFrames);

    if (screenshot) {
      await page.evaluate(() => { window.murmuration.ui.selected = 0; });
      await waitFrames(5);
      await page.screenshot({ path: screenshot });
      console.log(`saved ${screenshot}`);
    }

    // The page's digests equal the native ones.
    for (const [preset, steps, digest] of expects) {
      const got = await page.evaluate((preset, steps) => {
        const m = window.murmuration;
        m.ui.paused = true;
        m.call({ op: 'open', preset });
        m.call({ op: 'step', n: Number(steps) });
        return m.call({ op: 'digest' });
      }, preset, steps);
      check(got === digest, `${preset} after ${steps} steps: wasm ${got}, native ${digest}`);
    }
    check(errors.length === 0, `no page errors${errors.length ? ': ' + errors.join('; ') : ''}`);
    await checkPhone(browser, url);
    await checkFirstFrame(browser, url);
    await checkNoWebgl2(browser, url);
    await checkWebGpu(url);
  }
} finally {
  await browser.close();
}
if (failures) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}

// The panel: Space and the button agree; a 2D preset offers no banked flight
// and a 3D one does (under "advanced"); the count keeps the preset's density
// (the box grows with it); a folded panel gives the flock the whole window.
async function checkPanel(page, field, typeInto, waitFrames) {
  await page.keyboard.press(' ');
  let label = await page.evaluate(() => window.murmuration.ui.paused);
  const button = async () => (await field('resume').catch(() => null)) !== null;
  check(label === true && await button(), 'Space pauses and the button says "resume"');
  await page.keyboard.press(' ');
  check(!(await page.evaluate(() => window.murmuration.ui.paused)) && !(await button()), 'Space again resumes; the button says "pause"');
  const labels = () => page.$$eval('.lil-gui .lil-controller .lil-name', (els) => els.map((e) => e.textContent));
  let names = await labels();
  check(!names.includes('roll rate °/s') && !names.includes('gravity'), '2D preset: no banked-flight fields');
  check(!names.includes('boids') && !names.includes('topological k'), 'no "boids" slider inside a "boids" folder, no "topological k"');
  await page.evaluate(() => window.murmuration.open('starlings-3d'));
  names = await labels();
  check(names.includes('roll rate °/s'), '3D preset: banked flight offered');
  const advancedClosed = await page.$$eval('.lil-gui .lil-title', (els) => els.some((e) => e.textContent === 'advanced' && e.getAttribute('aria-expanded') === 'false'));
  check(advancedClosed, 'the advanced fields start folded');
  await page.evaluate(() => window.murmuration.open('default'));
  const side = () => page.evaluate(() => window.murmuration.state.max[0] - window.murmuration.state.min[0]);
  const before = await side();
  await typeInto('count', '8000');
  await waitFrames(5);
  const after = await side();
  check(Math.abs(after - 2 * before) < 1e-3, `count 2,000 → 8,000 doubles the box's side (${before} → ${after})`);
  // The box's centre on screen: mid-way across what the panel leaves free.
  const centre = () => page.evaluate(() => {
    const v = window.murmuration.view;
    return v.ox + ((v.max[0] - v.min[0]) / 2) * v.scale;
  });
  const open = await centre();
  await page.evaluate(() => window.murmuration.gui.close());
  await waitFrames(5);
  const folded = await centre();
  const canvasWidth = await page.$eval('#flock', (c) => c.getBoundingClientRect().width);
  check(canvasWidth === 1280 && Math.abs(open - 490) < 2 && Math.abs(folded - 640) < 2,
    `a folded panel leaves the flock the whole window (canvas ${canvasWidth} px; the box's centre at x ${open.toFixed(0)} → ${folded.toFixed(0)} px)`);
  await page.evaluate(() => window.murmuration.gui.open());
}

// Metrics at 50,000 boids (bench-2d's density) come from the worker: they
// arrive, and the frame pays at most two step times for them (on the main
// thread they cost 143 ms a second at this size).
async function checkMetricsOffTheFrame(page) {
  await page.evaluate(() => {
    const m = window.murmuration;
    m.open('bench-2d');
    m.call({ op: 'count', species: 0, value: '50000' });
    m.reopened(m.call({ op: 'state' }));
    m.setPaused(false);
  });
  const before = await page.evaluate(() => ({ ...window.murmuration.stats, t: performance.now() }));
  const done0 = before.metricsDone;
  await sleep(4000);
  const s = await page.evaluate(() => ({ ...window.murmuration.stats, t: performance.now(), mode: window.murmuration.renderer.mode, software: window.murmuration.renderer.software }));
  // Drawn as points by SwiftShader, 50,000 boids ran at 11–14 frames/s (the
  // rasteriser's ~1 µs a point); the CPU's picture gives 39–45 here.
  const fps = ((s.frames - before.frames) * 1000) / (s.t - before.t);
  // (With a GPU, 'auto' draws points, and the rate is the GPU's.)
  check(fps >= 20 && (s.mode === 'cpu') === s.software, `50,000 boids run at ${fps.toFixed(1)} frames/s (at least 20), drawn by the ${s.mode} (software WebGL: ${s.software})`);
  check(s.metricsDone >= done0 + 2, `metrics keep arriving at 50,000 boids (${s.metricsDone - done0} in 4 s; ${s.metricsWorkerMs.toFixed(0)} ms in the worker)`);
  check(s.boids === 50000 && s.metricsMainMaxMs <= 2 * s.stepMs,
    `the frame pays ${s.metricsMainMaxMs.toFixed(1)} ms at most for them, step ${s.stepMs.toFixed(1)} ms (${s.boids} boids)`);
  await page.evaluate(() => window.murmuration.open('default'));
}

// Who draws the boids: on software WebGL (SwiftShader here) 'auto' leaves a
// small flock to WebGL's points (the 50,000 boids above went to the engine's
// CPU picture); the two light the same places: around three boids, and not
// an empty corner (a flip or a shift between them fails this).
async function checkDrawing(page, waitFrames) {
  await page.evaluate(() => {
    const m = window.murmuration;
    m.open('default');
    m.setPaused(true);
    m.setDrawing('auto');
  });
  await waitFrames(3);
  const r = await page.evaluate(() => ({ device: window.murmuration.renderer.device, software: window.murmuration.renderer.software, mode: window.murmuration.renderer.mode }));
  check(r.mode === 'points', `WebGL draws 2,000 boids (${r.mode}; ${r.device.slice(0, 40)}…, software: ${r.software})`);
  const spots = await page.evaluate(() => {
    const m = window.murmuration, inst = m.instances();
    return [0, 700, 1400].map((i) => m.toPixel(inst[4 * i], inst[4 * i + 1]));
  });
  const lit = async (mode) => {
    await page.evaluate((d) => window.murmuration.setDrawing(d), mode);
    await waitFrames(2);
    return page.evaluate(async (spots) => {
      const m = window.murmuration;
      const near = [];
      for (const [x, y] of spots) near.push(await m.litPixels([x - 4, y - 4, 8, 8]));
      return { near, all: await m.litPixels(), corner: await m.litPixels([2, 2, 6, 6]) };
    }, spots);
  };
  const [cpu, points] = [await lit('cpu'), await lit('points')];
  await waitFrames(16); // the stats line is rewritten every 15 frames
  const alike = cpu.all < 3 * points.all && points.all < 3 * cpu.all;
  check(alike && [...cpu.near, ...points.near].every((n) => n > 0) && cpu.corner === 0 && points.corner === 0,
    `the CPU's picture and WebGL's points light the same boids (around three: ${cpu.near} and ${points.near} bright pixels; ${cpu.all} and ${points.all} in all)`);
  const stats = await page.$eval('#stats', (e) => e.textContent);
  check(/drawn by WebGL/.test(stats), `the stats line says who draws ("${stats.match(/drawn[^·]*/)?.[0]}")`);
  await page.evaluate(() => { window.murmuration.setDrawing('auto'); window.murmuration.setPaused(false); });
}

// Debug drawing for the flock, not one boid: with nothing selected the
// overlay draws the boids nearest the pointer, each switch takes its part
// away, and all off leaves the overlay blank.
async function checkDebugDrawing(page, waitFrames) {
  await page.evaluate(() => {
    const m = window.murmuration;
    m.open('phaser-canvas');
    m.setPaused(false);
    Object.assign(m.ui, { debug: true, selected: -1, debugRadii: true, debugVelocity: true, debugForces: true, debugCount: 40 });
  });
  await page.mouse.move(400, 300);
  await waitFrames(5);
  const inked = () => page.evaluate(() => {
    const c = document.getElementById('overlay');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 40) n++;
    return { n, drawn: window.murmuration.stats.debugDrawn };
  });
  const all = await inked();
  check(all.drawn === 40 && all.n > 3000, `debug drawing with nothing selected: ${all.drawn} boids, ${all.n} pixels inked`);
  // It costs the frame nothing to speak of: drawn on the CPU, into a canvas
  // only as large as the drawing (accelerated by SwiftShader, a full-window
  // one gave 15 frames/s here).
  const rate = await page.evaluate(() => new Promise((resolve) => {
    const m = window.murmuration, f0 = m.stats.frames, t0 = performance.now();
    setTimeout(() => resolve((m.stats.frames - f0) * 1000 / (performance.now() - t0)), 3000);
  }));
  const size = await page.$eval('#overlay', (c) => [c.width, c.height]);
  check(rate >= 30 && size[0] * size[1] < 0.75 * 1280 * 800,
    `debug drawing of 40 boids runs at ${rate.toFixed(1)} frames/s (at least 30) in a ${size.join(' × ')} canvas`);
  const parts = [];
  for (const key of ['debugRadii', 'debugVelocity', 'debugForces']) {
    await page.evaluate((key) => { window.murmuration.ui[key] = false; }, key);
    await waitFrames(3);
    parts.push((await inked()).n);
  }
  check(parts[0] < all.n && parts[1] < parts[0] && parts[2] === 0,
    `each switch takes its part away (${all.n} → ${parts.join(' → ')} pixels)`);
  await page.evaluate(() => Object.assign(window.murmuration.ui, { debugRadii: true, debugVelocity: true, debugForces: true }));
}

// Open worlds: after 25 s of the default flock under an open sky (its groups
// fly apart, out of the box fitted at the start: 8 % of it stays there) the
// camera has followed it. Species look as their preset says:
// seed 002's target (size 5) is a visible shape, not a dot.
async function checkCameraAndLooks(page, waitFrames) {
  await page.evaluate(() => {
    const m = window.murmuration;
    m.open('default', ['world.boundary="unbounded"']);
    m.setPaused(true);
    m.call({ op: 'step', n: 1500 });
  });
  const inView = () => page.evaluate(() => {
    const m = window.murmuration;
    const inst = m.instances();
    const v = m.view;
    const right = v.w - m.renderer.inset.right;
    let inside = 0;
    for (let i = 0; i < inst.length; i += 4) {
      const [x, y] = m.toPixel(inst[i], inst[i + 1]);
      if (x >= 0 && x <= right && y >= 0 && y <= v.h) inside++;
    }
    return inside / (inst.length / 4);
  });
  await page.evaluate(() => { window.murmuration.ui.follow = false; });
  await waitFrames(3);
  const still = await inView();
  await page.evaluate(() => { window.murmuration.ui.follow = true; });
  await waitFrames(150);
  const followed = await inView();
  check(followed >= 0.95 && still < 0.5, `the camera follows an open world's flock: ${(100 * followed).toFixed(0)} % of it in view after 25 s (${(100 * still).toFixed(0)} % in the box's view)`);

  const lit = await page.evaluate(async () => {
    const m = window.murmuration;
    m.open('sharks-and-schools');
    m.setPaused(true);
    const look = m.state.species[3].look;
    const t = m.call({ op: 'inspect', id: m.count() - 1 });
    const [x, y] = m.toPixel(...t.position);
    const rect = [x - 30, y - 30, 60, 60];
    const withLook = await m.litPixels(rect);
    m.renderer.scales.fill(1);
    if (m.renderer.cpuLooks) m.renderer.cpuLooks(m.renderer.palette, m.renderer.scales);
    const plain = await m.litPixels(rect);
    m.renderer.setLooks(m.state.species);
    m.setPaused(false);
    return { look, species: t.species, withLook, plain };
  });
  check(lit.species === 3 && lit.look.size === 5 && lit.withLook > 4 * lit.plain && lit.withLook > 60,
    `seed 002's target keeps its preset look (size ${lit.look.size}): ${lit.withLook} lit pixels, ${lit.plain} drawn plain`);
}

// Seed 003's flock around a click keeps its spacing: the median nearest
// neighbour with the target stays near the free flock's (it fell from 16.5 px
// to 1.4 px when the target pulled every boid onto one point).
async function checkTargetSpacing(page) {
  const r = await page.evaluate(async () => {
    const m = window.murmuration;
    m.setPaused(true);
    m.open('phaser-canvas');
    m.call({ op: 'step', n: 600 });
    const nn = () => {
      const xs = [];
      for (let k = 0; k < 10; k++) {
        m.call({ op: 'step', n: 120 });
        xs.push(m.call({ op: 'metrics' }).median_nn_distance);
      }
      return xs.sort((a, b) => a - b)[5];
    };
    const free = nn();
    m.open('phaser-canvas');
    m.call({ op: 'step', n: 600 });
    m.call({ op: 'target', x: 400, y: 300 });
    const held = nn();
    m.call({ op: 'clear_target' });
    m.setPaused(false);
    return { free, held };
  });
  check(r.held >= 0.45 * r.free, `the target gathers seed 003's flock without packing it (median nearest neighbour ${r.held.toFixed(1)} px, free ${r.free.toFixed(1)} px)`);
}

// A phone: the canvas fills the screen, the panel starts folded at the bottom,
// a tap sets the target.
async function checkPhone(browser, url) {
  const page = await browser.newPage();
  await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 90000 });
  await page.waitForFunction(() => document.body.dataset.ready === '1' && window.murmuration.stats.frames > 10, { timeout: 60000 });
  const canvas = await page.$eval('#flock', (c) => c.getBoundingClientRect().width);
  const panel = await page.$eval('#panel', (p) => ({ bottom: p.getBoundingClientRect().bottom }));
  const folded = await page.evaluate(() => window.murmuration.gui._closed);
  check(canvas === 390 && folded && panel.bottom >= 843, `phone: canvas ${canvas} px wide, panel folded at the bottom (${folded}, bottom ${panel.bottom})`);
  await page.touchscreen.tap(195, 400);
  const n = await page.evaluate(() => window.murmuration.call({ op: 'entities' }).attractors.length);
  check(n === 1, 'phone: a tap sets the target');
  await page.close();
}

// Time to the first frame over a 20 Mbit/s link (40 ms round trip), the
// module served compressed: at most 1.5 s.
async function checkFirstFrame(browser, url) {
  const page = await browser.newPage();
  await page.emulateNetworkConditions({ download: 20e6 / 8, upload: 5e6 / 8, latency: 40 });
  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.murmuration && window.murmuration.stats.frames >= 1, { timeout: 60000, polling: 10 });
  const ms = Date.now() - t0;
  // Where the time went, for a failure's message: the module's arrival and
  // the page's own marks (app.js), from the navigation's start.
  const when = await page.evaluate(() => {
    const wasm = performance.getEntriesByType('resource').find((r) => r.name.endsWith('murmuration.wasm'));
    const mark = (name) => Math.round(performance.getEntriesByName(name)[0]?.startTime ?? NaN);
    return wasm ? `module ${Math.round(wasm.startTime)}–${Math.round(wasm.responseEnd)} ms (${wasm.transferSize} bytes), engine ${mark('engine-loaded')}, flock ${mark('flock-open')}, frame ${mark('first-frame')}` : 'no module entry';
  });
  check(ms <= 1500, `first frame after ${ms} ms on a 20 Mbit/s link (${when})`);
  await page.close();
}

// Without WebGL2: one clear message, no errors, no "loading" left behind.
async function checkNoWebgl2(browser, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.evaluateOnNewDocument(() => {
    const real = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
      return kind === 'webgl2' ? null : real.call(this, kind, ...rest);
    };
  });
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 90000 });
  await page.waitForFunction(() => document.body.dataset.ready === 'no-webgl2', { timeout: 30000 }).catch(() => {});
  await sleep(1000);
  const text = await page.$eval('#message', (e) => e.textContent);
  const stats = await page.$eval('#stats', (e) => e.textContent);
  check(text.includes('WebGL2') && !stats.includes('loading') && errors.length === 0,
    `no WebGL2: "${text.slice(0, 60)}…", ${errors.length} page errors`);
  await page.close();
}

// The flock on WebGPU (crates/murmuration-webgpu) in a browser that has it:
// `auto` keeps WebAssembly on a software adapter and says why; ?engine=webgpu
// steps and draws on it; its flock agrees with the CPU engine's within the
// GPU parity tolerance (crates/murmuration-gpu/tests/integration/parity.rs:
// median 1e-5, p99 1e-4, max 0.05 units after 20 steps); a parameter is
// uploaded, a target rebuilds the GPU flock, and the flock moves back to
// WebAssembly on request.
async function checkWebGpu(url) {
  const gpuBrowser = await puppeteer.launch({
    executablePath,
    headless: true,
    args: WEBGPU_FLAGS,
    // Small: SwiftShader pays for every pixel of WebGPU's passes.
    defaultViewport: { width: 800, height: 500 },
  });
  try {
    const page = await gpuBrowser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    const base = url.replace(/\/?$/, '/');
    // Chromium's first WebGPU start (SwiftShader's Vulkan) can take a while.
    await page.goto(base, { waitUntil: 'domcontentloaded', timeout: 90000 });
    await page.waitForFunction(() => document.body.dataset.ready === '1' && /software/.test(window.murmuration.engineLabel()), { timeout: 60000 });
    const auto = await page.evaluate(() => ({ engine: window.murmuration.engine, label: window.murmuration.engineLabel() }));
    check(auto.engine === 'wasm', `auto keeps WebAssembly on a software WebGPU adapter: "${auto.label}"`);

    await page.goto(`${base}?engine=webgpu`, { waitUntil: 'domcontentloaded', timeout: 90000 });
    await page.waitForFunction(() => window.murmuration && window.murmuration.engine === 'webgpu' && window.murmuration.stats.frames > 5, { timeout: 120000 });
    const label = await page.evaluate(() => window.murmuration.engineLabel());
    const lit = await page.evaluate(() => window.murmuration.litPixels());
    check(/^WebGPU/.test(label) && lit > 500, `?engine=webgpu steps and draws on WebGPU (${lit} bright pixels; "${label}")`);

    // Both engines open `preset` and step `steps`; boid by boid (the engines
    // store them in different orders), through the nearest image in a
    // wrapping box, how far apart they are.
    const agreement = (preset, steps) => page.evaluate(async (preset, steps) => {
      const m = window.murmuration;
      m.setPaused(true);
      const { cpu, gpu } = m.engines;
      for (const e of [cpu, gpu]) e.call({ op: 'open', preset });
      await gpu.ready();
      for (const e of [cpu, gpu]) e.call({ op: 'step', n: steps });
      await gpu.sync();
      const st = cpu.call({ op: 'state' });
      const side = [st.max[0] - st.min[0], st.max[1] - st.min[1]];
      const err = [];
      for (let id = 0; id < cpu.count(); id++) {
        const a = cpu.call({ op: 'inspect', id }).position, b = gpu.call({ op: 'inspect', id }).position;
        let dx = a[0] - b[0], dy = a[1] - b[1];
        dx -= side[0] * Math.round(dx / side[0]);
        dy -= side[1] * Math.round(dy / side[1]);
        err.push(Math.hypot(dx, dy));
      }
      const last = err[err.length - 1];
      err.sort((x, y) => x - y);
      const n = err.length;
      return { n, same: cpu.count() === gpu.count(), steps: gpu.stepIndex(), median: err[n >> 1], p99: err[Math.floor(n * 0.99)], max: err[n - 1], last, failure: gpu.failure ?? null };
    }, preset, steps);

    const parity = await agreement('default', 20);
    check(parity.same && parity.n === 2000 && parity.steps === 20 && parity.median <= 1e-5 && parity.p99 <= 1e-4 && parity.max <= 0.05,
      `WebGPU's flock agrees with WebAssembly's after ${parity.steps} steps: ${parity.n} boids, position error median ${parity.median.toExponential(1)}, p99 ${parity.p99.toExponential(1)}, max ${parity.max.toExponential(1)}`);

    // Seed 002's hunt: the pursuit pass's workgroups (barriers, a reduction)
    // compile under the browser's WGSL rules and pick WebAssembly's targets
    // (the shark is the last id).
    const hunt = await agreement('sharks-and-schools', 20);
    check(hunt.failure === null && hunt.same && hunt.n === 8002 && hunt.steps === 20 && hunt.median <= 1e-5 && hunt.max <= 0.05,
      `seed 002's hunt steps on WebGPU with WebAssembly's targets: ${hunt.n} fish and shark after ${hunt.steps} steps, error median ${hunt.median.toExponential(1)}, max ${hunt.max.toExponential(1)} (the shark ${hunt.last.toExponential(1)})${hunt.failure ? ': ' + hunt.failure : ''}`);
    await page.evaluate(async () => {
      const { cpu, gpu } = window.murmuration.engines;
      for (const e of [cpu, gpu]) e.call({ op: 'open', preset: 'default' });
      await gpu.ready();
    });

    const tuned = await page.evaluate(async () => {
      const { gpu } = window.murmuration.engines;
      gpu.call({ op: 'set', species: 0, key: 'max_speed', value: '1' });
      gpu.call({ op: 'step', n: 30 });
      await gpu.sync();
      return gpu.call({ op: 'metrics' }).mean_speed;
    });
    check(tuned <= 1 + 1e-3, `a parameter reaches the GPU flock (max speed 1: mean speed ${tuned.toFixed(3)})`);

    const target = await page.evaluate(async () => {
      const m = window.murmuration;
      const { gpu } = m.engines;
      const c = m.call({ op: 'state' });
      const at = [(c.min[0] + c.max[0]) / 2, (c.min[1] + c.max[1]) / 2];
      gpu.call({ op: 'target', x: at[0], y: at[1] });
      const before = gpu.stepIndex();
      await gpu.ready();
      gpu.call({ op: 'step', n: 10 });
      const built = gpu.builds;
      // Dragged: moved, not rebuilt (a touch drag moves it every frame).
      gpu.call({ op: 'target', x: at[0] + 3, y: at[1] - 2 });
      gpu.call({ op: 'step', n: 10 });
      await gpu.sync();
      const ents = gpu.call({ op: 'entities' });
      return { attractors: ents.attractors.length, at: ents.attractors[0]?.position, stepped: gpu.stepIndex() - before, rebuilt: gpu.builds - built, failure: gpu.failure ?? null };
    });
    check(target.attractors === 1 && target.stepped === 20 && target.rebuilt === 0 && target.failure === null,
      `a target set rebuilds the GPU flock; moved, it is uploaded in place (${JSON.stringify(target)})`);

    await page.evaluate(() => { window.murmuration.setPaused(false); window.murmuration.setEngine('wasm'); });
    await page.waitForFunction(() => window.murmuration.engine === 'wasm' && window.murmuration.stats.frames > 0, { timeout: 30000 });
    const f0 = await page.evaluate(() => window.murmuration.stats.frames);
    await page.waitForFunction((f) => window.murmuration.stats.frames > f + 10, { timeout: 30000 }, f0);
    const back = await page.evaluate(async () => ({ lit: await window.murmuration.litPixels(), label: window.murmuration.engineLabel() }));
    check(back.lit > 500 && back.label.startsWith('WebAssembly'), `the flock moves back to WebAssembly on request (${back.lit} bright pixels, "${back.label}")`);
    check(errors.length === 0, `no page errors on WebGPU${errors.length ? ': ' + errors.join('; ') : ''}`);
  } finally {
    await gpuBrowser.close();
  }
}

// Frames per second, step time and the longest frame at 1,000, 10,000 and
// 50,000 boids in bench-2d's density (the count op grows the box with the
// count), the page as a visitor has it (glow on; debug drawing off, or of its
// default 20 boids with MURMURATION_WEB_BENCH_DEBUG=1), drawn as 'auto'
// chooses or as MURMURATION_WEB_BENCH_DRAW (points, cpu) says.
// MURMURATION_WEB_BENCH_SECONDS=S measures S seconds per row (default 5).
async function runBench(page, waitFrames) {
  const seconds = Number(process.env.MURMURATION_WEB_BENCH_SECONDS || 5);
  for (const n of [1000, 10000, 50000]) {
    const debugEnv = process.env.MURMURATION_WEB_BENCH_DEBUG || '0';
    const drawing = process.env.MURMURATION_WEB_BENCH_DRAW || 'auto';
    await page.evaluate((n, debugEnv, drawing) => {
      const m = window.murmuration;
      m.open('bench-2d');
      m.reopened(m.call({ op: 'count', species: 0, value: String(n) }));
      m.setPaused(false);
      m.ui.selected = -1;
      m.ui.debug = debugEnv === '1';
      m.setDrawing(drawing);
    }, n, debugEnv, drawing);
    // Warm-up: the module's first frames, the old flock's memory (WebGPU: its
    // flock built; software WebGPU draws few frames a second).
    await waitFrames(benchGpu ? 10 : 120);
    const r = await page.evaluate((ms) => new Promise((resolve) => {
      const m = window.murmuration;
      const f0 = m.stats.frames;
      const t0 = performance.now();
      let last = t0;
      let longest = 0;
      const tick = (t) => {
        longest = Math.max(longest, t - last);
        last = t;
        if (t - t0 < ms) requestAnimationFrame(tick);
        else resolve({ frames: m.stats.frames - f0, t: t - t0, longest, step: m.stats.stepMs, draw: m.stats.drawMs, side: m.state.max[0] - m.state.min[0], mode: m.engine === 'webgpu' ? 'webgpu' : m.renderer.mode, steps: m.stats.stepsPerSecond });
      };
      requestAnimationFrame(tick);
    }), seconds * 1000);
    console.log(JSON.stringify({
      boids: n,
      drawn_by: r.mode,
      world_side: Number(r.side.toFixed(1)),
      fps: Number(((r.frames * 1000) / r.t).toFixed(1)),
      ...(benchGpu ? { steps_per_s: Number(r.steps.toFixed(1)) } : { step_ms_median: Number(r.step.toFixed(3)) }),
      draw_ms: Number(r.draw.toFixed(3)),
      longest_frame_ms: Number(r.longest.toFixed(1)),
    }));
  }
}
