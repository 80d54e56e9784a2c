// Starts a Web Worker that imports the default entry, built by Vite at its default worker format
// (a classic script). The worker says 'ready' once its imports have settled, then gets the
// parameters and answers with the check's summary.
const params = new URLSearchParams(location.search);
const worker = new Worker(new URL('./worker-auto.js', import.meta.url));
worker.onmessage = (event) => {
  if (event.data === 'ready')
    worker.postMessage({
      baseUrl: params.get('base'),
      token: params.get('token'),
      id: params.get('id'),
    });
  else window.result = event.data;
};
worker.onerror = (event) => {
  window.result = { error: String(event.message) };
};
