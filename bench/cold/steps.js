// Cold start of ours taken apart, step by step, in a page or in Node: the package's `manual` entry (the
// glue, with no automatic load) is imported, then each step of what index.js and node.mjs do in one go
// is done on its own and timed with performance.now():
// - glue:        when this module starts running, i.e. the glue fetched, parsed and run (bench.mjs
//                subtracts the hand-written page's own start, pair by pair);
// - platform:    Node's fetch globals loaded (nothing in a page);
// - request:     the .wasm's bytes: fetched next to the glue in a page, read from disk in Node;
// - compile:     WebAssembly.compile of those bytes;
// - instantiate: init(module): the instance with its imports, and the glue's start;
// - construct:   the first `new PlantStoreClient` (and `second`: another one, for comparison);
// - call:        the first createPlant with the in-memory fetch of ours.js.
// Done in sequence, whereas index.js streams the .wasm's compile while it downloads.
// `plant-store-client/manual` resolves through the page's import map; bench.mjs writes a copy with
// the path of manual.js for Node, whose exports map sends `manual` to the auto-loading node.mjs.
import { init, PlantStoreClient } from 'plant-store-client/manual';

const imported = performance.now();
// Node loads its fetch globals (undici) on first use; the glue's init reads `Response`, and the
// hand-written call pays the same in its first call. Touched first, so that it is a step of its own.
void globalThis.Response;
const platform = performance.now();
const WASM = 'plant_store_client_bg.wasm';
const inNode = typeof process === 'object' && process.versions?.node;
let bytes;
if (inNode) {
  const { readFileSync } = await import('node:fs');
  bytes = readFileSync(new URL(`../node_modules/plant-store-client/${WASM}`, import.meta.url));
} else {
  bytes = await (await fetch(new URL(`/pkg/${WASM}`, location.href))).arrayBuffer();
}
const requested = performance.now();
const module = await WebAssembly.compile(bytes);
const compiled = performance.now();
await init(module);
const instantiated = performance.now();
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
    request: requested - platform,
    compile: compiled - requested,
    instantiate: instantiated - compiled,
    construct: constructed - instantiated,
    second: second - constructed,
    call: called - second,
  },
};
