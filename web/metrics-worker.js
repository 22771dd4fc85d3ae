// The metrics worker: its own instance of the page's module (sent compiled by
// the page), holding no flock. The page posts the flock's snapshot once a
// second; the worker answers with its metrics (neighbour searches and group
// labelling: tens to hundreds of ms at 50,000-100,000 boids), so that cost
// never lands on a frame. Answers: {ok: metrics} or {error: message}.

let ready = null;

onmessage = (e) => {
  if (e.data.module) {
    ready = WebAssembly.instantiate(e.data.module, {}).then((instance) => instance.exports);
    return;
  }
  ready.then((ex) => {
    const bytes = e.data.snapshot;
    const ptr = ex.mm_alloc(bytes.length);
    new Uint8Array(ex.memory.buffer, ptr, bytes.length).set(bytes);
    const t0 = performance.now();
    const len = ex.mm_metrics_of(ptr, bytes.length);
    const ms = performance.now() - t0;
    ex.mm_free(ptr, bytes.length);
    const answer = JSON.parse(new TextDecoder().decode(new Uint8Array(ex.memory.buffer, ex.mm_out(), len)));
    postMessage({ ...answer, ms });
  }).catch((err) => postMessage({ error: `metrics worker: ${err.message}` }));
};
