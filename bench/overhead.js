// Per-call overhead: createPlant with an in-memory fetch against a hand-written fetch call doing the
// same work. Runs in Node and in a browser page alike; returns figures, prints nothing:
//   const figures = await measureOverhead(api, { rounds, perRound })
// where `api` is the imported package.
//
// `measureOverhead` runs both sides in the same process, in alternating rounds in ABBA order (ours
// then theirs, then theirs then ours, …), so whatever drifts during a run (JIT tiering, the machine)
// falls on both sides alike. Its ratio is the median of the ratios of the rounds taken in pairs: a
// round that took a garbage collection is left out. `totalRatio` divides the time of all rounds of
// one side by the other's, collections included; but in one heap a collection frees the garbage of
// both sides, and lands in whichever round is running when it comes, at the same rounds in every
// page: that ratio moves with the warm-up and the round size (README, "Performance: figures").
// `measureAlone` runs one side alone, so that the time of its rounds counts the collections of its
// own garbage and no other's: run in pages of their own, ours against the hand-written call.
// `measureSame` runs the hand-written call against a second copy of itself the way
// `measureOverhead` does: how far from 1.00x two identical calls land is the resolution of the figure.

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

/** Our call, checked once: `createPlant` through a client with the in-memory fetch. */
async function oursCall(api) {
  const client = new api.PlantStoreClient({ baseUrl: BASE, token: TOKEN, fetch: cannedFetch });
  const ours = (i) => client.createPlant({ id: i, name: 'Fern', tag: 'green' });
  const check = await ours(1);
  if (check.name !== 'Fern' || check.tag !== 'green') throw new Error('createPlant returned ' + JSON.stringify(check));
  return ours;
}

/** The hand-written call, a fresh copy of it each time. */
function theirsCall() {
  const handWritten = handWrittenCall();
  return (i) => handWritten({ id: i, name: 'Fern', tag: 'green' });
}

export async function measureOverhead(api, { rounds = 20, perRound = 2000 } = {}) {
  return compare(await oursCall(api), theirsCall(), rounds, perRound);
}

/**
 * One side alone, `side` 'ours' or 'theirs': two rounds of warm-up, then the time of `rounds`
 * rounds, collections included. Returns { ms, calls }.
 */
export async function measureAlone(api, side, { rounds = 20, perRound = 2000 } = {}) {
  const call = side === 'ours' ? await oursCall(api) : theirsCall();
  await time(call, perRound);
  await time(call, perRound);
  let ms = 0;
  for (let r = 0; r < rounds; r++) ms += await time(call, perRound);
  return { ms, calls: rounds * perRound };
}

/** The hand-written call against a copy of itself, measured as `measureOverhead` measures. */
export async function measureSame({ rounds = 20, perRound = 2000 } = {}) {
  return compare(theirsCall(), theirsCall(), rounds, perRound);
}
