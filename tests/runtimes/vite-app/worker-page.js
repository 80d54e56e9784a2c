// Starts two module Workers: one imports the default entry (loads on import), the other
// `plant-store-client/manual` and calls init() itself. Each says 'ready' once its imports have
// settled (a message posted before then could be lost: the default entry's import awaits the wasm),
// then gets the parameters and answers with the check's summary.
const params = new URLSearchParams(location.search);
const run = (worker, id) =>
  new Promise((resolve) => {
    worker.onmessage = (event) => {
      if (event.data === 'ready')
        worker.postMessage({ baseUrl: params.get('base'), token: params.get('token'), id });
      else resolve(event.data);
    };
    worker.onerror = (event) => resolve({ error: String(event.message) });
  });
const id = BigInt(params.get('id'));
Promise.all([
  run(new Worker(new URL('./worker-auto.js', import.meta.url), { type: 'module' }), String(id)),
  run(
    new Worker(new URL('./worker-manual.js', import.meta.url), { type: 'module' }),
    String(id + 1n),
  ),
]).then(([auto, manual]) => {
  window.result = { auto, manual };
});
