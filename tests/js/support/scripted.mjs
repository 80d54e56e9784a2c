// A scripted Plant Store for issue 25's suite (tests/js/retries.test.mjs), on 127.0.0.1: each
// request of one plant id to `POST /s/<steps>/plants` plays the next step of the comma list
// `<steps>` (the last repeats), so a test says "503, then the operation" as `503,ok`.
//
// Steps: `ok` (the operation: the bearer token checked, a duplicate id refused with 400, error 3),
// a status (`503`, `502`, `500`, …: that status with an Error body), `429s<N>` and `503s<N>`
// (Retry-After: N seconds), `429d<N>` (Retry-After as an HTTP-date N s ahead), `reset` (the
// socket destroyed before any answer), `storedreset` (stored, then the socket destroyed before the
// answer), `stored503` (stored, then a 503, as a proxy answers when its upstream reset after the write), `slowok<MS>` (stored at once, answered after MS ms),
// `hang` (never answers; ended by the client or after 10 s, its log entry's `closed` then set),
// `badok` (200 that is not a Plant). Each request's log entry has its arrival time, `at`
// (performance.now()), and `wall` (Date.now(), the clock an HTTP-date is read against).
// Every answer carries `x-request-id`; CORS lets a page of another origin call, send
// `traceparent` and `idempotency-key`, and read `retry-after` and `x-request-id`.
import http from 'node:http';
import { once } from 'node:events';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, content-type, traceparent, idempotency-key',
  'access-control-allow-methods': 'POST',
  'access-control-expose-headers': 'retry-after, x-request-id',
};
const HANG_CAP_MS = 10_000;

export async function startScripted({ token }) {
  const played = new Map();
  const plants = new Map();
  const log = [];
  const server = http.createServer(async (req, res) => {
    if (req.method === 'OPTIONS') return res.writeHead(204, { ...CORS, connection: 'close' }).end();
    let body = '';
    for await (const chunk of req) body += chunk;
    const match = req.url.match(/^\/s\/([^/]+)\/plants$/);
    if (!match) return res.writeHead(404, CORS).end();
    const steps = decodeURIComponent(match[1]).split(',');
    const id = JSON.parse(body).id;
    const key = `${match[1]} ${id}`;
    const n = played.get(key) ?? 0;
    played.set(key, n + 1);
    const step = steps[Math.min(n, steps.length - 1)];
    const entry = {
      steps: match[1],
      id,
      n,
      step,
      headers: req.headers,
      at: performance.now(),
      wall: Date.now(),
    };
    log.push(entry);
    // `connection: close`: Chromium resends a POST by itself when a reused keep-alive connection is
    // reset before any answer, and the client would never see the reset it must retry.
    const answer = (status, value, headers = {}) =>
      res
        .writeHead(status, {
          ...CORS,
          'content-type': 'application/json',
          'x-request-id': `r-${log.length}`,
          connection: 'close',
          ...headers,
        })
        .end(typeof value === 'string' ? value : JSON.stringify(value));
    const later = { error: 8, message: 'try later' };
    if (step === 'reset') return req.socket.destroy();
    if (step === 'hang') {
      const timer = setTimeout(() => res.destroy(), HANG_CAP_MS);
      // When the client gave up on it (or the cap ended it).
      return res.on('close', () => {
        entry.closed = performance.now();
        clearTimeout(timer);
      });
    }
    if (step === 'badok') return answer(200, '{"nom":1}');
    const waits = step.match(/^(429|503)s(\d+)$/);
    if (waits) return answer(+waits[1], later, { 'retry-after': waits[2] });
    const until = step.match(/^429d(\d+)$/);
    if (until) {
      // The date has whole seconds (toUTCString drops the milliseconds): kept, in ms, as the log's `retryAt`.
      const date = new Date(Date.now() + until[1] * 1000).toUTCString();
      entry.retryAt = Date.parse(date);
      return answer(429, later, { 'retry-after': date });
    }
    if (/^\d{3}$/.test(step)) return answer(+step, later);
    if (req.headers.authorization !== `Bearer ${token}`)
      return answer(401, { error: 4, message: 'bad token' });
    if (plants.has(id))
      return answer(400, { error: 3, message: `a plant with id ${id} already exists` });
    const plant = JSON.parse(body);
    plants.set(id, plant);
    const created = { name: plant.name, ...(plant.tag === undefined ? {} : { tag: plant.tag }) };
    // The operation done, and its answer lost: the socket destroyed before it leaves.
    if (step === 'storedreset') return req.socket.destroy();
    if (step === 'stored503') return answer(503, later);
    const slow = step.match(/^slowok(\d+)$/);
    if (slow) {
      const timer = setTimeout(() => answer(200, created), +slow[1]);
      return res.on('close', () => clearTimeout(timer));
    }
    if (step === 'ok') return answer(200, created);
    answer(500, { error: 9, message: `unknown step ${step}` });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    log,
    plants,
    /** The requests for plant `id`. */
    requests: (id) => log.filter((entry) => entry.id === id),
    stop: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
