// The Murmuration engine in the page: loads the WebAssembly module built from
// crates/murmuration-web and wraps its C ABI (mm_* exports, see its lib.rs).
// Requests are JSON; an answer {"error": ...} becomes a thrown EngineError
// whose message is the core's own (the page shows it).

export class EngineError extends Error {}

export const INSTANCE_FLOATS = 4; // x, y, heading (radians), species

export async function loadEngine(url) {
  const response = await fetch(url);
  if (!response.ok) throw new EngineError(`cannot load ${url}: HTTP ${response.status}`);
  const { module, instance } = await WebAssembly.instantiateStreaming(response, {});
  return new Engine(instance.exports, module);
}

export class Engine {
  constructor(exports, module) {
    this.ex = exports;
    // The compiled module, for the metrics worker's own instance.
    this.module = module;
    this.encoder = new TextEncoder();
    this.decoder = new TextDecoder();
  }

  // Sends one request ({op: ...}); returns the answer or throws EngineError.
  call(request) {
    const ex = this.ex;
    const bytes = this.encoder.encode(JSON.stringify(request));
    const ptr = ex.mm_alloc(bytes.length);
    new Uint8Array(ex.memory.buffer, ptr, bytes.length).set(bytes);
    const len = ex.mm_call(ptr, bytes.length);
    ex.mm_free(ptr, bytes.length);
    const text = this.decoder.decode(new Uint8Array(ex.memory.buffer, ex.mm_out(), len));
    const answer = JSON.parse(text);
    if ('error' in answer) throw new EngineError(answer.error);
    return answer.ok;
  }

  // Steps the open flock n times; returns its boid count.
  step(n) {
    return this.ex.mm_step(n);
  }

  // Each boid's position, velocity and species (2·dim + 1 floats), copied
  // out for the metrics worker.
  kinematics(dim) {
    const n = this.ex.mm_count();
    const ptr = this.ex.mm_kinematics();
    return new Float32Array(this.ex.memory.buffer, ptr, n * (2 * dim + 1)).slice();
  }

  // The open flock drawn on the CPU into a view.w × view.h RGBA picture
  // (bottom row first), in render.js's view: { bytes, changed }, bytes a view
  // of the module's memory (valid until the next call) and changed the
  // [x, y, width, height] that differs from the picture before; null when
  // nothing is open.
  splat(view, size, glow) {
    const ex = this.ex;
    const ptr = ex.mm_splat(view.w, view.h, view.min[0], view.min[1], view.scale,
      view.ox, view.oy, size, glow ? 1 : 0);
    if (!ptr) return null;
    const changed = Array.from(new Uint32Array(ex.memory.buffer, ex.mm_splat_changed(), 4));
    return { bytes: new Uint8Array(ex.memory.buffer, ptr, view.w * view.h * 4), changed };
  }

  // The species' colours (8 RGB) and sizes (8) the CPU drawing uses.
  splatLooks(palette, scales) {
    const ptr = this.ex.mm_alloc(32 * 4);
    const f = new Float32Array(this.ex.memory.buffer, ptr, 32);
    f.set(palette.slice(0, 24));
    f.set(scales.slice(0, 8), 24);
    this.ex.mm_splat_looks(ptr);
    this.ex.mm_free(ptr, 32 * 4);
  }

  // Boids in the open flock.
  count() {
    return this.ex.mm_count();
  }

  // A view of the instance array (valid until the next call into the module).
  instances() {
    const n = this.ex.mm_count();
    return new Float32Array(this.ex.memory.buffer, this.ex.mm_instances(), n * INSTANCE_FLOATS);
  }
}
