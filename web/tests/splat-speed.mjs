// The module's CPU drawing (`mm_splat`) timed under node, for BENCHMARKS.md:
//   target/release/murmuration web --export /tmp/page   (builds the module)
//   node web/tests/splat-speed.mjs target/wasm32-unknown-unknown/web/murmuration_web.wasm
// bench-2d at 10,000 and 50,000 boids (the page's count request), drawn into
// a 1280 × 800 picture with the box fitted as the page fits it; the median of
// 40 pictures after 50 steps, and of 10 steps.
import { readFileSync } from 'fs';

const path = process.argv[2] || 'target/wasm32-unknown-unknown/web/murmuration_web.wasm';
const { instance } = await WebAssembly.instantiate(readFileSync(path), {});
const ex = instance.exports;
const encoder = new TextEncoder();
function call(request) {
  const bytes = encoder.encode(JSON.stringify(request));
  const ptr = ex.mm_alloc(bytes.length);
  new Uint8Array(ex.memory.buffer, ptr, bytes.length).set(bytes);
  const len = ex.mm_call(ptr, bytes.length);
  ex.mm_free(ptr, bytes.length);
  const answer = JSON.parse(new TextDecoder().decode(new Uint8Array(ex.memory.buffer, ex.mm_out(), len)));
  if ('error' in answer) throw new Error(answer.error);
  return answer.ok;
}
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
const [w, h] = [1280, 800];
for (const n of [10000, 50000]) {
  call({ op: 'open', preset: 'bench-2d' });
  const state = call({ op: 'count', species: 0, value: String(n) });
  ex.mm_step(50);
  const side = state.max[0] - state.min[0];
  const scale = (Math.min(w, h) / side) * 0.98;
  const [ox, oy] = [(w - side * scale) / 2, (h - side * scale) / 2];
  const size = Math.max(side * Math.min(0.012, 0.36 / Math.sqrt(n)), 2.5 / scale);
  const draws = [];
  for (let k = 0; k < 40; k++) {
    ex.mm_step(1);
    const t0 = performance.now();
    ex.mm_splat(w, h, state.min[0], state.min[1], scale, ox, oy, size, 1);
    draws.push(performance.now() - t0);
  }
  const steps = [];
  for (let k = 0; k < 10; k++) {
    const t0 = performance.now();
    ex.mm_step(1);
    steps.push(performance.now() - t0);
  }
  const changed = Array.from(new Uint32Array(ex.memory.buffer, ex.mm_splat_changed(), 4));
  console.log(JSON.stringify({ boids: n, splat_ms_median: +median(draws).toFixed(2), step_ms_median: +median(steps).toFixed(2), changed }));
}
