// Cold start of ours taken apart, step by step, in a page or in Node: the package is imported (its
// entry fetched or read, parsed and run: the .wasm inside it decoded, then compiled in the
// background in a page, at once in Node), then each later step is timed on its own with
// performance.now():
// - imported:   when this module starts running, i.e. the package imported (bench.mjs subtracts the
//               hand-written page's own start, pair by pair);
// - platform:   Node's fetch globals loaded (nothing in a page);
// - ready:      init() resolved: the background compile and the instance (nothing left in Node);
// - construct:  the first `new PlantStoreClient` (and `second`: another one, for comparison);
// - call:       the first createPlant with the in-memory fetch of ours.js.
// `plant-store-client` resolves through the page's import map (/pkg/index.js), to node.mjs in Node.
import { init, PlantStoreClient } from 'plant-store-client';

const imported = performance.now();
// Node loads its fetch globals (undici) on first use; the glue's init reads `Response`, and the
// hand-written call pays the same in its first call. Touched first, so that it is a step of its own.
void globalThis.Response;
const platform = performance.now();
await init();
const ready = performance.now();
const canned = async () =>
  new Response('{"name":"Fern","tag":"green"}', {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
const options = {
  baseUrl: 'https://plants.example/api',
  token: 'bench-token-0123456789',
  fetch: canned,
};
const client = new PlantStoreClient(options);
const constructed = performance.now();
new PlantStoreClient(options).free();
const second = performance.now();
const plant = await client.createPlant({ id: 1, name: 'Fern', tag: 'green' });
const called = performance.now();
globalThis.coldStart = {
  imported,
  called,
  plant,
  steps: {
    platform: platform - imported,
    ready: ready - platform,
    construct: constructed - ready,
    second: second - constructed,
    call: called - second,
  },
};
