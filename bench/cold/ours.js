// Cold start, ours: import the package, then the first createPlant through a PlantStoreClient with an
// in-memory fetch. Records performance.now() (ms since navigation start in a page, since process start
// in Node) when the import is done and when the call is done. `plant-store-client` resolves through
// the page's import map (/pkg/index.js), to node.mjs in Node, and to the bundle in a Vite build.
import { PlantStoreClient } from 'plant-store-client';

const imported = performance.now();
const fetch = async () =>
  new Response('{"name":"Fern","tag":"green"}', {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
const client = new PlantStoreClient({
  baseUrl: 'https://plants.example/api',
  token: 'bench-token-0123456789',
  fetch,
});
const plant = await client.createPlant({ id: 1, name: 'Fern', tag: 'green' });
globalThis.coldStart = { imported, called: performance.now(), plant };
