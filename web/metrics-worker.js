// The metrics worker: its own instance of the page's module (sent compiled by
// the page) holding a mirror of the page's flock: the same preset, overrides
// and species parameters, never stepped. The page sends the mirror whenever it
// changes (only the latest is built, when positions next arrive, so a dragged
// slider costs one rebuild, not one per tick) and, once a second, its boids'
// positions, velocities and species; the worker measures them in the mirror
// (neighbour searches and group labelling: tens to hundreds of ms at
// 50,000-100,000 boids), so that cost never lands on a frame.
// Answers: {ok: metrics, ms, epoch} or {error: message}.

let ready = null;
let pendingMirror = null;

function call(ex, request) {
  const bytes = new TextEncoder().encode(JSON.stringify(request));
  const ptr = ex.mm_alloc(bytes.length);
  new Uint8Array(ex.memory.buffer, ptr, bytes.length).set(bytes);
  const len = ex.mm_call(ptr, bytes.length);
  ex.mm_free(ptr, bytes.length);
  return answer(ex, len);
}

function answer(ex, len) {
  return JSON.parse(new TextDecoder().decode(new Uint8Array(ex.memory.buffer, ex.mm_out(), len)));
}

onmessage = (e) => {
  if (e.data.module) {
    ready = WebAssembly.instantiate(e.data.module, {}).then((instance) => instance.exports);
    return;
  }
  if (e.data.mirror) {
    pendingMirror = e.data.mirror;
    return;
  }
  ready.then((ex) => {
    if (pendingMirror) {
      const a = call(ex, { op: 'adopt', ...pendingMirror });
      pendingMirror = null;
      if ('error' in a) {
        postMessage({ error: `the mirror: ${a.error}` });
        return;
      }
    }
    const bytes = new Uint8Array(e.data.kinematics.buffer);
    const ptr = ex.mm_alloc(bytes.length);
    new Uint8Array(ex.memory.buffer, ptr, bytes.length).set(bytes);
    const t0 = performance.now();
    const len = ex.mm_metrics_of(ptr, bytes.length);
    const ms = performance.now() - t0;
    ex.mm_free(ptr, bytes.length);
    postMessage({ ...answer(ex, len), ms, epoch: e.data.epoch });
  }).catch((err) => postMessage({ error: `metrics worker: ${err.message}` }));
};
