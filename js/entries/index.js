// Browsers and bundlers: the .wasm is an asset found through import.meta.url (wasm-url.js, imported
// first), compiled while it streams in and instantiated in the background; the import does not
// wait for it (no top-level await, which Vite 5 and 6 refuse at their default build target), and
// the exports wait or say so (api.js). Compiled here and handed to the glue's initSync rather than
// through the glue's default loader, which carries every kind of source (its price is in
// docs/performance.md).
import { url, response } from './wasm-url.js';
import { initSync } from './plant_store_client.js';
import { framesOnFailure, loading } from './api.js';

/** Compiles the .wasm as it arrives; from its bytes when the server does not label it application/wasm. */
const compile = (wasm) =>
  WebAssembly.compileStreaming(wasm).catch(async (error) => {
    if (/^application\/wasm\b/.test(wasm.headers.get('content-type'))) throw error;
    return WebAssembly.compile(await wasm.arrayBuffer());
  });

loading(
  () =>
    response()
      .then(compile)
      .then((module) => initSync({ module })),
  url,
);
framesOnFailure();

export { createPlant, validateNewPlant, PlantStoreClient, PlantStoreError, init } from './api.js';
