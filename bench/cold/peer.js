// Cold start, a peer: import the peer (bench/bench.mjs writes one copy per peer, `plant-store-peer`
// replaced by the path of its node.mjs in Node, of its entry.ts in a Vite app; bench/peers/), then its
// first createPlant with the same in-memory fetch as ours.js. Records performance.now() as ours.js does.
import { makeCreatePlant } from 'plant-store-peer';

const imported = performance.now();
const fetch = async () =>
  new Response('{"name":"Fern","tag":"green"}', {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
const createPlant = makeCreatePlant({
  baseUrl: 'https://plants.example/api',
  token: 'bench-token-0123456789',
  fetch,
});
const plant = await createPlant({ id: 1, name: 'Fern', tag: 'green' });
globalThis.coldStart = { imported, called: performance.now(), plant };
