// Per-call overhead: createPlant with an in-memory fetch against a hand-written fetch call doing the
// same work, in the same process, alternating rounds. Runs in Node and in a browser page alike:
//   const figures = await measureOverhead(api, { rounds, perRound })
// where `api` is the imported package. Returns figures, prints nothing.
//
// Rounds alternate in ABBA order (ours then theirs, then theirs then ours, …), so whatever drifts
// during a run (JIT tiering, garbage collection debt left by the previous round) falls on both sides
// alike. The ratio is the median of the ratios of the rounds taken in pairs; `totalRatio` divides the
// time of all rounds of one side by the other's. The median leaves out the rounds that took a
// collection, the total counts them: a side that allocates more pays for more of them, so both are
// printed. `measureSame` runs the
// hand-written call against a second copy of itself the same way: how far from 1.00x two identical
// calls land is the resolution of the figure.

const PLANT_JSON = '{"name":"Fern","tag":"green"}';
const TOKEN = 'bench-token-0123456789';
const BASE = 'https://plants.example/api';

/** The in-memory server both sides call: checks nothing, answers a canned 200 Plant. */
function cannedFetch() {
  return Promise.resolve(new Response(PLANT_JSON, { status: 200, headers: { 'content-type': 'application/json' } }));
}

/** What a careful person writes by hand: bearer header, JSON.stringify, status check, JSON parse. */
function handWrittenCall() {
  return async function handWritten(plant) {
    const response = await cannedFetch(`${BASE}/plants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(plant),
      credentials: 'omit',
    });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    return response.json();
  };
}

async function time(fn, n) {
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return performance.now() - start;
}

/** The median; for an even count, the mean of the two middle values. */
export function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  return (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2;
}

const sum = (xs) => xs.reduce((total, x) => total + x, 0);

/**
 * Runs `a` and `b` (async, each returning one figure) once each to warm up, then `rounds` times in
 * ABBA order (a then b, then b then a, …); returns the figures of each side, round by round.
 */
export async function abba(a, b, rounds) {
  await a();
  await b();
  const as = [];
  const bs = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      as.push(await a());
      bs.push(await b());
    } else {
      bs.push(await b());
      as.push(await a());
    }
  }
  return { as, bs };
}

/** `a` against `b`: µs per call of each (medians of the rounds), the median paired ratio, the total ratio. */
async function compare(a, b, rounds, perRound) {
  const { as: aMs, bs: bMs } = await abba(() => time(a, perRound), () => time(b, perRound), rounds);
  return {
    oursUs: (median(aMs) * 1000) / perRound,
    theirsUs: (median(bMs) * 1000) / perRound,
    ratio: median(aMs.map((ms, r) => ms / bMs[r])),
    totalRatio: sum(aMs) / sum(bMs),
    totalMs: [sum(aMs), sum(bMs)],
    calls: rounds * perRound,
  };
}

export async function measureOverhead(api, { rounds = 20, perRound = 2000 } = {}) {
  const client = new api.PlantStoreClient({ baseUrl: BASE, token: TOKEN, fetch: cannedFetch });
  const ours = (i) => client.createPlant({ id: i, name: 'Fern', tag: 'green' });
  const handWritten = handWrittenCall();
  const theirs = (i) => handWritten({ id: i, name: 'Fern', tag: 'green' });
  const check = await ours(1);
  if (check.name !== 'Fern' || check.tag !== 'green') throw new Error('createPlant returned ' + JSON.stringify(check));
  return compare(ours, theirs, rounds, perRound);
}

/** The hand-written call against a copy of itself, measured as `measureOverhead` measures. */
export async function measureSame({ rounds = 20, perRound = 2000 } = {}) {
  const one = handWrittenCall();
  const other = handWrittenCall();
  return compare((i) => one({ id: i, name: 'Fern', tag: 'green' }), (i) => other({ id: i, name: 'Fern', tag: 'green' }), rounds, perRound);
}
