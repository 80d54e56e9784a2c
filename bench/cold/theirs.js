// The hand-written call the benchmarks measure ours against, written once: what a careful person
// writes with fetch (bearer header, JSON.stringify, status check, response.json()), alone or with
// what ours also does per call (an AbortController whose signal goes in the init, a 10 s timeout
// set and cleared), and the in-memory fetch every side calls. bench/overhead.js times them per
// call. As the module a page or a process runs (cold/theirs.html, cold/node.mjs, a Vite build's
// main.js), it is the cold start's hand-written side: its first call, recorded as cold/ours.js
// records ours; `imported` is when this module starts running. (Imported by overhead.js, it makes
// that one call too, before anything is timed.)
const imported = performance.now();

export const TOKEN = 'bench-token-0123456789';
export const BASE = 'https://plants.example/api';
const TIMEOUT_MS = 10_000;

/** The in-memory server every side calls: checks nothing, answers a canned 200 Plant. */
export function cannedFetch() {
  const headers = { 'content-type': 'application/json' };
  return Promise.resolve(new Response('{"name":"Fern","tag":"green"}', { status: 200, headers }));
}

/** A fresh copy of the bare hand-written call. */
export function bareCall() {
  return async function handWritten(plant) {
    const response = await cannedFetch(`${BASE}/plants`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      body: JSON.stringify(plant),
      credentials: 'omit',
    });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    return response.json();
  };
}

/** A fresh copy of the same call with a timeout: an AbortController, setTimeout and clearTimeout. */
export function abortCall() {
  return async function handWrittenWithAbort(plant) {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException('timed out', 'TimeoutError')),
      TIMEOUT_MS,
    );
    try {
      const response = await cannedFetch(`${BASE}/plants`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: JSON.stringify(plant),
        credentials: 'omit',
        signal: controller.signal,
      });
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      return await response.json();
    } finally {
      clearTimeout(timer);
    }
  };
}

const plant = await abortCall()({ id: 1, name: 'Fern', tag: 'green' });
globalThis.coldStart = { imported, called: performance.now(), plant };
