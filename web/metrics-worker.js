// The metrics worker: its own instance of the page's module (sent compiled by
// the page) holding a mirror of the page's flock: the same preset, overrides
// and species parameters (sent again whenever they change), never stepped.
// Once a second the page posts its boids' positions, velocities and species;
// the worker measures them in the mirror (neighbour searches and group
// labelling: tens to hundreds of ms at 50,000-100,000 boids), so that cost
// never lands on a frame. Answers: {ok: metrics, ms} or {error: message}.

let ready = null;

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
  ready.then((ex) => {
    if (e.data.mirror) {
      const a = call(ex, { op: 'adopt', ...e.data.mirror });
      if ('error' in a) postMessage(a);
      return;
    }
    const bytes = new Uint8Array(e.data.kinematics.buffer);
    const ptr = ex.mm_alloc(bytes.length);
    new Uint8Array(ex.memory.buffer, ptr, bytes.length).set(bytes);
    const t0 = performance.now();
    const len = ex.mm_metrics_of(ptr, bytes.length);
    const ms = performance.now() - t0;
    ex.mm_free(ptr, bytes.length);
    postMessage({ ...answer(ex, len), ms });
  }).catch((err) => postMessage({ error: `metrics worker: ${err.message}` }));
};
