// Per-call overhead: createPlant with an in-memory fetch against a hand-written fetch call doing the
// same work, in the same process, alternating rounds. Runs in Node and in a browser page alike:
//   const rows = await measureOverhead(api, { rounds, perRound })
// where `api` is the imported package. Returns figures, prints nothing.

const PLANT_JSON = '{"name":"Fern","tag":"green"}';
const TOKEN = 'bench-token-0123456789';
const BASE = 'https://plants.example/api';

/** The in-memory server both sides call: checks nothing, answers a canned 200 Plant. */
function cannedFetch() {
  return Promise.resolve(new Response(PLANT_JSON, { status: 200, headers: { 'content-type': 'application/json' } }));
}

/** What a careful person writes by hand: bearer header, JSON.stringify, status check, JSON parse. */
async function handWritten(plant) {
  const response = await cannedFetch(`${BASE}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(plant),
    credentials: 'omit',
  });
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return response.json();
}

async function time(fn, n) {
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return performance.now() - start;
}

export async function measureOverhead(api, { rounds = 20, perRound = 2000 } = {}) {
  const client = new api.PlantStoreClient({ baseUrl: BASE, token: TOKEN, fetch: cannedFetch });
  const ours = (i) => client.createPlant({ id: i, name: 'Fern', tag: 'green' });
  const theirs = (i) => handWritten({ id: i, name: 'Fern', tag: 'green' });
  const check = await ours(1);
  if (check.name !== 'Fern' || check.tag !== 'green') throw new Error('createPlant returned ' + JSON.stringify(check));
  await time(ours, perRound); // warm up both
  await time(theirs, perRound);
  const oursMs = [];
  const theirsMs = [];
  for (let r = 0; r < rounds; r++) {
    oursMs.push(await time(ours, perRound));
    theirsMs.push(await time(theirs, perRound));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const oursUs = (median(oursMs) * 1000) / perRound;
  const theirsUs = (median(theirsMs) * 1000) / perRound;
  return { oursUs, theirsUs, ratio: oursUs / theirsUs, calls: rounds * perRound };
}
