// The metrics worker: its own instance of the page's module (sent compiled by
// the page) holding a mirror of the page's flock: the same preset, overrides
// and species parameters, never stepped. The page sends the mirror whenever it
// changes (only the latest is built, when positions next arrive, so a dragged
// slider costs one rebuild, not one per tick) and, once a second, its boids'
// positions, velocities and species; the worker measures them in the mirror
// (neighbour searches and group labelling: tens to hundreds of ms at
// 50,000-100,000 boids), so that cost never lands on a frame.
// Answers: {ok: metrics, ms, epoch} or {error: message}.

import { Engine } from './engine.js';

let ready = null;
let pendingMirror = null;

onmessage = (e) => {
  if (e.data.module) {
    ready = WebAssembly.instantiate(e.data.module, {}).then((instance) => new Engine(instance.exports, e.data.module));
    return;
  }
  if (e.data.mirror) {
    pendingMirror = e.data.mirror;
    return;
  }
  ready.then((engine) => {
    if (pendingMirror) {
      const mirror = pendingMirror;
      pendingMirror = null;
      engine.call({ op: 'adopt', ...mirror });
    }
    const ex = engine.ex;
    const bytes = new Uint8Array(e.data.kinematics.buffer);
    const ptr = ex.mm_alloc(bytes.length);
    new Uint8Array(ex.memory.buffer, ptr, bytes.length).set(bytes);
    const t0 = performance.now();
    const len = ex.mm_metrics_of(ptr, bytes.length);
    const ms = performance.now() - t0;
    ex.mm_free(ptr, bytes.length);
    const answer = JSON.parse(engine.decoder.decode(new Uint8Array(ex.memory.buffer, ex.mm_out(), len)));
    postMessage({ ...answer, ms, epoch: e.data.epoch });
  }).catch((err) => postMessage({ error: `metrics worker: ${err.message}` }));
};
