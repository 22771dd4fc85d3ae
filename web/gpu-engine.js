// The WebGPU engine: the flock stepped by the GPU crate's compute shaders and
// drawn by the render crate into its own canvas (crates/murmuration-webgpu,
// with wasm-bindgen's glue in gpu/). It answers the same JSON requests as the
// WebAssembly engine (engine.js), from the same session code; positions,
// inspection and metrics are as of the last read-back (`sync`).

import { EngineError } from './engine.js';

const SOFTWARE = /swiftshader|llvmpipe|lavapipe|software|warp/i;

// What WebGPU offers here, asked before the module (9 MB) is fetched:
// { adapter, software } or { missing: reason }.
export async function probeWebGpu() {
  if (!('gpu' in navigator)) {
    return {
      missing: window.isSecureContext
        ? 'this browser has no WebGPU'
        : 'WebGPU needs a secure page (https or localhost)',
    };
  }
  let adapter = null;
  try {
    adapter = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (e) {
    return { missing: `the browser refused a WebGPU adapter (${e.message})` };
  }
  if (!adapter) return { missing: 'the browser offers no WebGPU adapter' };
  const info = adapter.info || {};
  const name = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ');
  return { adapter: name || 'unnamed adapter', software: Boolean(info.isFallbackAdapter) || SOFTWARE.test(name) };
}

// Loads the module and opens WebGPU on `canvas`; throws EngineError with the
// reason when the browser offers no adapter.
// `probe` is probeWebGpu()'s answer.
export async function loadGpuEngine(canvas, cpuModule, probe) {
  let glue;
  try {
    glue = await import('./gpu/murmuration_webgpu.js');
  } catch (e) {
    throw new EngineError(`this page was published without its WebGPU module (${e.message})`);
  }
  await glue.default({ module_or_path: new URL('gpu/murmuration_webgpu_bg.wasm', import.meta.url) });
  let inner;
  try {
    inner = await glue.GpuEngine.open(canvas, probe.adapter, probe.software);
  } catch (e) {
    throw new EngineError(e.message || String(e));
  }
  return new GpuEngine(inner, cpuModule);
}

export class GpuEngine {
  constructor(inner, cpuModule) {
    this.inner = inner;
    this.gpu = true;
    this.adapter = inner.adapter;
    this.software = inner.software;
    // The metrics worker measures in a CPU module of its own.
    this.module = cpuModule;
  }

  // Sends one request ({op: ...}); returns the answer or throws EngineError.
  call(request) {
    const answer = JSON.parse(this.inner.call(JSON.stringify(request)));
    if ('error' in answer) throw new EngineError(answer.error);
    return answer.ok;
  }

  // Queues n steps on the GPU (none while a flock is built or read back);
  // returns the boid count.
  step(n) {
    return this.inner.step(n);
  }

  // Reads the GPU's state back into the session (a promise).
  sync() {
    return this.inner.sync();
  }

  // The GPU's step counter.
  stepIndex() {
    return this.inner.stepIndex();
  }

  count() {
    return this.inner.count();
  }

  // x, y, heading, species per boid, as of the last read-back.
  instances() {
    return this.inner.instances();
  }

  // Position, velocity, species per boid, as of the last read-back (a copy).
  kinematics() {
    return this.inner.kinematics();
  }

  // Resolves once the flock is built on the GPU (steps wait until then).
  async ready() {
    for (;;) {
      this.inner.step(0);
      if (!this.inner.busy) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  // The device's or a task's failure, or undefined.
  get failure() {
    return this.inner.failure;
  }

  // GPU flocks built so far (a moved target needs none).
  get builds() {
    return this.inner.builds;
  }

  // True while steps wait for a flock to be built.
  get busy() {
    return this.inner.busy;
  }

  // Draws the flock in render.js's view ({ w, h, min, scale, ox, oy }: world
  // to pixels, y up from the bottom) with boids `size` units long.
  draw(view, size, glow) {
    const left = view.min[0] - view.ox / view.scale;
    const bottom = view.min[1] - view.oy / view.scale;
    const half = view.h / (2 * view.scale);
    this.inner.draw(view.w, view.h, left + view.w / (2 * view.scale), bottom + half, half, size, glow);
  }
}
