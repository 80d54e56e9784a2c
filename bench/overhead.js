// Per-call overhead: createPlant with an in-memory fetch against hand-written fetch calls doing the
// same work. Runs in Node and in a browser page alike; returns figures, prints nothing:
//   const { bare, abort, same } = await measureOverhead(api, { rounds, perRound })
//   const byPeer = await measurePeers({ name: makeCreatePlant, … }, { rounds, perRound })
// where `api` is the imported package and each `makeCreatePlant({ baseUrl, token, fetch })` a peer's
// (bench/peers/).
//
// Each comparison runs its two sides in the same process, in alternating rounds in ABBA order (a then
// b, then b then a, …), so whatever drifts during a run (JIT tiering, the machine) falls on both sides
// alike. Its ratio is the median of the ratios of the rounds taken in pairs: a round that took a
// garbage collection is left out. Three comparisons:
// - bare:  ours against the bare hand-written call (bearer header, JSON.stringify, status check,
//          response.json());
// - abort: ours against the same call with what ours also does per call: an AbortController whose
//          signal goes in the init, and a 10 s timeout set and cleared (ours' default timeout);
// - same:  the bare hand-written call against a second copy of itself: how far from 1.00x two
//          identical calls land is the resolution of the figures.
// And each peer against the bare hand-written call, the same way (measurePeers). The hand-written
// calls and the in-memory fetch are cold/theirs.js's, the cold start's baseline too.

import { BASE, TOKEN, cannedFetch, bareCall, abortCall } from './cold/theirs.js';

async function time(fn, n) {
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return performance.now() - start;
}

/**
 * Calls per second of `call(id)`, made `n` times with `inFlight` calls at once; each call gets the
 * next of `ids` (a counter object, `{ next }`), so every plant is new to the server.
 */
export async function callsPerSecond(call, { n, inFlight, ids }) {
  let left = n;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (left-- > 0) await call(++ids.next);
    }),
  );
  return n / ((performance.now() - start) / 1000);
}

/** The median; for an even count, the mean of the two middle values. */
export function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  return (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2;
}

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

/** `a` against `b`: µs per call of each (medians of the rounds) and the median paired ratio a/b. */
async function compare(a, b, rounds, perRound) {
  const { as: aMs, bs: bMs } = await abba(
    () => time(a, perRound),
    () => time(b, perRound),
    rounds,
  );
  return {
    aUs: (median(aMs) * 1000) / perRound,
    bUs: (median(bMs) * 1000) / perRound,
    ratio: median(aMs.map((ms, r) => ms / bMs[r])),
  };
}

/** Our call, checked once: `createPlant` through a client with the in-memory fetch. */
async function oursCall(api) {
  const client = new api.PlantStoreClient({ baseUrl: BASE, token: TOKEN, fetch: cannedFetch });
  const ours = (i) => client.createPlant({ id: i, name: 'Fern', tag: 'green' });
  const check = await ours(1);
  if (check.name !== 'Fern' || check.tag !== 'green')
    throw new Error(`createPlant returned ${JSON.stringify(check)}`);
  return ours;
}

/** A hand-written call (`bareCall` or `abortCall`), a fresh copy of it each time. */
function theirsCall(make) {
  const handWritten = make();
  return (i) => handWritten({ id: i, name: 'Fern', tag: 'green' });
}

export async function measureOverhead(api, { rounds = 20, perRound = 2000 } = {}) {
  const ours = await oursCall(api);
  return {
    bare: await compare(ours, theirsCall(bareCall), rounds, perRound),
    abort: await compare(ours, theirsCall(abortCall), rounds, perRound),
    same: await compare(theirsCall(bareCall), theirsCall(bareCall), rounds, perRound),
  };
}

/**
 * Two builds of the package side by side (the price list, bench/price.mjs): createPlant of `variant`
 * against createPlant of `base`, each through a client with the in-memory fetch, in ABBA rounds.
 */
export async function measureVariant(base, variant, { rounds = 20, perRound = 2000 } = {}) {
  return compare(await oursCall(variant), await oursCall(base), rounds, perRound);
}

/**
 * A peer's call, checked once: its createPlant with the in-memory fetch. Also whether it rejects a
 * NewPlant without its name (request validation) and a 200 Plant without its name (response
 * validation), as ours does.
 */
async function peerCall(makeCreatePlant) {
  const call = makeCreatePlant({ baseUrl: BASE, token: TOKEN, fetch: cannedFetch });
  const peer = (i) => call({ id: i, name: 'Fern', tag: 'green' });
  const check = await peer(1);
  if (check?.name !== 'Fern' || check.tag !== 'green')
    throw new Error(`the peer returned ${JSON.stringify(check)}`);
  const rejects = (promise) =>
    promise.then(
      () => false,
      () => true,
    );
  const nameless = () =>
    Promise.resolve(
      new Response('{"tag":"green"}', {
        status: 200,
        headers: { 'content-type': 'application/json' },
      }),
    );
  const validates = {
    request: await rejects(call({ id: 1, tag: 'green' })),
    response: await rejects(
      makeCreatePlant({ baseUrl: BASE, token: TOKEN, fetch: nameless })({
        id: 1,
        name: 'Fern',
        tag: 'green',
      }),
    ),
  };
  return { peer, validates };
}

/** Each peer (`name` → its makeCreatePlant) against the bare hand-written call; also what it validates. */
export async function measurePeers(peers, { rounds = 20, perRound = 2000 } = {}) {
  const byPeer = {};
  for (const [name, makeCreatePlant] of Object.entries(peers)) {
    const { peer, validates } = await peerCall(makeCreatePlant);
    byPeer[name] = { ...(await compare(peer, theirsCall(bareCall), rounds, perRound)), validates };
  }
  return byPeer;
}
