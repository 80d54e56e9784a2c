// Issue 25: retries, the single-flight token refresh and the hooks, against the scripted server of
// tests/js/support/scripted.mjs, from the packed package. Each case is one source run alike in
// Node and, for those marked `browser`, in Chromium from a page of another origin; it returns what
// the caller saw ({ kind, status, code, attempts, maybeCreated, retryAfterMs, cause, ms }), and the
// assertions read the server's log of what arrived and when. No outcome depends on how fast the
// machine is: a clock only bounds a wait from below (a retry no sooner than its Retry-After, a
// timeout no sooner than timeoutMs), and where two things race, one is at least ten times later
// than the other (a 3 s attempt against an answer after 30 s, a call ended "at once" within 5 s of
// a 10 s wait). The waits are 10 ms backoffs and Retry-Afters of 1 to 10 s; every call is bounded
// by its timeoutMs, and the server's hang ends by itself.
//   PKG_TARBALL=artifacts/release/plant-store-client-0.1.0.tgz node --test tests/js/retries.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startPackagePage } from './support/static.mjs';
import { launchChromium } from './support/browser.mjs';
import { tarball } from './support/tarball.mjs';
import { startScripted } from './support/scripted.mjs';
import { leak } from './support/leaks.mjs';

const TOKEN = 'fresh-token-0123';
const TOKENS = [TOKEN, 'expired-token-01', 'wrong-token-0123'];

/** Defined in Node and in the page alike: a call and what its caller saw. */
const HELPERS = `
  globalThis.seen = (e) => e === undefined ? { kind: 'ok' } : ({
    kind: e.kind, status: e.status, code: e.code, attempts: e.attempts, maybeCreated: e.maybeCreated,
    retryAfterMs: e.retryAfterMs, message: e.message,
    cause: e.cause?.kind ?? (e.cause === undefined ? undefined : String(e.cause?.message ?? e.cause)),
  });
  globalThis.call = async (api, base, steps, id, options = {}, callOptions) => {
    const started = performance.now();
    const client = new api.PlantStoreClient({ baseUrl: base + '/s/' + steps, token: '${TOKEN}', ...options });
    try {
      await client.createPlant({ id, name: 'Fern' }, callOptions);
      return { ...seen(), ms: performance.now() - started };
    } catch (e) {
      return { ...seen(e), ms: performance.now() - started };
    }
  };`;

/**
 * The cases: `body` is the source of an async function of (api, base, id) returning what the caller
 * saw; `check(r, server, id)` asserts on it and on what reached the server.
 */
const CASES = [
  {
    name: '503 then 200: retried, both attempts seen by afterAttempt',
    browser: true,
    body: `const attempts = [];
      const r = await call(api, base, '503,ok', id, { retry: { attempts: 3, baseDelayMs: 10 },
        afterAttempt: (o) => attempts.push([o.attempt, o.status, o.headers?.get('x-request-id') ?? null, o.error?.kind ?? null]) });
      return { ...r, hooked: attempts };`,
    check: (r, server, id) => {
      assert.equal(r.kind, 'ok');
      assert.equal(server.requests(id).length, 2);
      assert.deepEqual(
        r.hooked.map(([n, status, , kind]) => [n, status, kind]),
        [
          [1, 503, 'unexpected_status'],
          [2, 200, null],
        ],
      );
      assert.ok(
        r.hooked.every(([, , requestId]) => /^r-\d+$/.test(requestId)),
        'x-request-id read from each answer',
      );
    },
  },
  {
    name: '429 with Retry-After: 1 (seconds) waits a second, then 200',
    body: `return call(api, base, '429s1,ok', id, { retry: {} });`,
    check: (r, server, id) => {
      assert.equal(r.kind, 'ok');
      const [first, second] = server.requests(id);
      assert.ok(
        second.at - first.at >= 950,
        `retried after ${Math.round(second.at - first.at)} ms`,
      );
    },
  },
  {
    name: '429 with Retry-After as an HTTP-date 2 s ahead waits until then, then 200',
    body: `const r = await call(api, base, '429d2,ok', id, { retry: { maxDelayMs: 3000 } });
      return { ...r, far: await call(api, base, '429d30', id + 1, { retry: { maxDelayMs: 3000 } }) };`,
    check: (r, server, id) => {
      assert.equal(r.kind, 'ok');
      const [first, second] = server.requests(id);
      // The retry came at the date or after it (the date has whole seconds: 1 to 2 s after the
      // 429; a few ms allowed for the clocks' rounding).
      assert.ok(
        second.wall >= first.retryAt - 5,
        `retried ${first.retryAt - second.wall} ms before the date`,
      );
      // A date 30 s ahead is over maxDelayMs: the call ends with the wait it read, at most the
      // 30 s the server gave (less by the time the answer took to be read, 10 s allowed).
      assert.deepEqual([r.far.kind, r.far.status, r.far.attempts], ['unexpected_status', 429, 1]);
      assert.ok(
        r.far.retryAfterMs <= 30_000 && r.far.retryAfterMs > 20_000,
        `the wait read from the date: ${r.far.retryAfterMs} ms`,
      );
    },
  },
  {
    name: 'a Retry-After over maxDelayMs ends the call at once, with the wait on the error',
    body: `const r = await call(api, base, '429s30', id, { retry: {} });
      return { ...r, next: await call(api, base, 'ok', id + 1) };`,
    check: (r, server, id) => {
      assert.deepEqual(
        [r.kind, r.status, r.attempts, r.retryAfterMs, r.maybeCreated],
        ['unexpected_status', 429, 1, 30000, false],
      );
      assert.equal(server.requests(id).length, 1);
      endedBeforeTheWait(server, id, 30_000);
    },
  },
  {
    name: 'retries off: a 429 or 503 that asks for a wait reports it, and retries used up report the last',
    browser: true,
    body: `return [await call(api, base, '429s2', id), await call(api, base, '503s3', id + 1),
      await call(api, base, '503s1,503s4', id + 2, { retry: { attempts: 2, maxDelayMs: 5000 } }),
      await call(api, base, '503', id + 3)];`,
    check: ([off, unavailable, usedUp, plain]) => {
      assert.deepEqual(
        [off.kind, off.status, off.attempts, off.retryAfterMs],
        ['unexpected_status', 429, 1, 2000],
      );
      assert.deepEqual([unavailable.status, unavailable.retryAfterMs], [503, 3000]);
      assert.deepEqual([usedUp.status, usedUp.attempts, usedUp.retryAfterMs], [503, 2, 4000]);
      assert.equal(plain.retryAfterMs, undefined, 'no Retry-After, no wait reported');
    },
  },
  {
    name: 'a Retry-After over the time left ends the call at once',
    body: `const r = await call(api, base, '429s30,ok', id, { retry: { maxDelayMs: 60000 }, timeoutMs: 10000 });
      return { ...r, next: await call(api, base, 'ok', id + 1) };`,
    check: (r, server, id) => {
      // Waiting would have met the deadline first: the 429 at once, not a timeout after 10 s.
      assert.deepEqual(
        [r.kind, r.status, r.attempts, r.retryAfterMs],
        ['unexpected_status', 429, 1, 30000],
      );
      endedBeforeTheWait(server, id, 10_000);
    },
  },
  {
    name: 'a reset before any answer, then 200',
    browser: true,
    body: `const attempts = [];
      const r = await call(api, base, 'reset,ok', id, { retry: { baseDelayMs: 10 },
        afterAttempt: (o) => attempts.push(o.status ?? o.error?.kind) });
      return { ...r, hooked: attempts };`,
    check: (r, server, id) => {
      assert.equal(r.kind, 'ok');
      // The client saw the reset and retried (not the browser resending on its own).
      assert.deepEqual(r.hooked, ['network', 200]);
      assert.equal(server.requests(id).length, 2);
    },
  },
  {
    name: 'an attempt that times out, then 400 "duplicate id": rejected, maybeCreated, the timeout as cause',
    browser: true,
    // The first attempt is answered after 30 s, the second (the duplicate id) at once: an attempt's 3 s
    // part them whatever the machine's load.
    body: `return call(api, base, 'slowok30000', id, { retry: { attempts: 2, attemptTimeoutMs: 3000, baseDelayMs: 10 }, timeoutMs: 20000 });`,
    check: (r, server, id) => {
      assert.deepEqual(
        [r.kind, r.status, r.code, r.attempts, r.maybeCreated, r.cause],
        ['rejected', 400, 3, 2, true, 'timeout'],
      );
      assert.ok(server.plants.has(id), 'the first attempt created the plant');
      assert.equal(server.requests(id).length, 2);
    },
  },
  {
    name: 'an abort during the wait ends the call at once; no retry is sent',
    browser: true,
    // The next call reaches the server long before the Retry-After's 10 s are over, and is answered
    // after them: a retry of the aborted call would be in the server's log by then.
    body: `const abort = new AbortController();
      setTimeout(() => abort.abort(new Error('user left')), 100);
      const r = await call(api, base, '429s10,ok', id, { retry: { maxDelayMs: 20000 }, timeoutMs: 30000, signal: abort.signal });
      return { ...r, next: await call(api, base, 'slowok10500', id + 1, { timeoutMs: 30000 }) };`,
    check: (r, server, id) => {
      assert.deepEqual([r.kind, r.attempts, r.cause], ['aborted', 1, 'user left']);
      endedBeforeTheWait(server, id, 9_000);
      assert.equal(r.next.kind, 'ok');
      assert.equal(server.requests(id).length, 1, 'no request after the abort');
    },
  },
  {
    name: 'afterAttempt aborts the call it sees: aborted, no retry, nothing thrown outside the call',
    browser: true,
    // The abort fires while the shell runs the hook, which Rust asked for: the call ends there.
    body: `const abort = new AbortController();
      return call(api, base, '503,ok', id, { retry: { attempts: 3, baseDelayMs: 10 },
        afterAttempt: () => abort.abort(new Error('seen enough')) }, { signal: abort.signal });`,
    check: (r, server, id) => {
      assert.deepEqual([r.kind, r.attempts, r.cause], ['aborted', 1, 'seen enough']);
      assert.equal(server.requests(id).length, 1, 'no request after the abort');
    },
  },
  {
    name: 'the deadline running out mid-retry: timeout after 2 attempts, the 503 as cause',
    // 3 s: the 503 comes well within it, however loaded the machine; the hang never ends by itself
    // before the server's 10 s cap.
    body: `return call(api, base, '503,hang', id, { retry: { baseDelayMs: 10 }, timeoutMs: 3000 });`,
    check: async (r, server, id) => {
      assert.deepEqual(
        [r.kind, r.attempts, r.maybeCreated, r.cause],
        ['timeout', 2, true, 'unexpected_status'],
      );
      assert.match(r.message, /within 3000 ms$/);
      assert.ok(r.ms >= 2950, `${r.ms} ms`);
      // The call's deadline, not the server's 10 s cap, ended the hanging second request: it is
      // closed well before the cap (the wait is for the close to reach the server).
      const hung = server.requests(id)[1];
      for (let i = 0; i < 200 && hung.closed === undefined; i++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      assert.ok(hung.closed - hung.at < 9_000, 'the client closed the hanging request');
    },
  },
  {
    name: 'no retry on 400 (duplicate id)',
    body: `await call(api, base, 'ok', id); return call(api, base, 'ok', id, { retry: { baseDelayMs: 10 } });`,
    check: (r, server, id) => {
      assert.deepEqual([r.kind, r.code, r.attempts, r.maybeCreated], ['rejected', 3, 1, false]);
      assert.equal(server.requests(id).length, 2, 'one request for each of the two calls');
    },
  },
  {
    name: 'no retry on validation: nothing sent',
    body: `const client = new api.PlantStoreClient({ baseUrl: base + '/s/ok', token: '${TOKEN}', retry: {} });
      try { await client.createPlant({ id, name: 5 }); return seen(); } catch (e) { return seen(e); }`,
    check: (r, server, id) => {
      assert.deepEqual([r.kind, r.attempts], ['validation', 0]);
      assert.equal(server.requests(id).length, 0);
    },
  },
  {
    name: 'no retry on invalid_response (a 200 that is not a Plant): maybeCreated',
    body: `return call(api, base, 'badok,ok', id, { retry: { baseDelayMs: 10 } });`,
    check: (r, server, id) => {
      assert.deepEqual(
        [r.kind, r.status, r.attempts, r.maybeCreated],
        ['invalid_response', 200, 1, true],
      );
      assert.equal(server.requests(id).length, 1);
    },
  },
  {
    name: 'no retry on 500 or on 502 unless gatewayErrors',
    body: `return [await call(api, base, '500,ok', id, { retry: { baseDelayMs: 10 } }),
      await call(api, base, '502,ok', id + 1, { retry: { baseDelayMs: 10 } }),
      await call(api, base, '504,ok', id + 2, { retry: { baseDelayMs: 10, gatewayErrors: true } })];`,
    check: ([r500, r502, r504], server, id) => {
      assert.deepEqual(
        [r500.kind, r500.status, r500.attempts, r500.maybeCreated],
        ['unexpected_status', 500, 1, true],
      );
      assert.deepEqual([r502.kind, r502.status, r502.attempts], ['unexpected_status', 502, 1]);
      assert.equal(r504.kind, 'ok');
      assert.deepEqual(
        [1, 2, 3].map((_n, i) => server.requests(id + i).length),
        [1, 1, 2],
      );
    },
  },
  {
    name: '64 concurrent calls with an expired token: exactly one refresh',
    browser: true,
    body: `let token = 'expired-token-01'; const refreshes = [];
      const client = new api.PlantStoreClient({ baseUrl: base + '/s/ok', getToken: async ({ refresh }) => {
        if (refresh) { refreshes.push(token); await new Promise((r) => setTimeout(r, 20)); token = '${TOKEN}'; }
        return token;
      } });
      const results = await Promise.all(Array.from({ length: 64 }, (_, i) =>
        client.createPlant({ id: id + i, name: 'Fern' }).then(() => seen(), seen)));
      return { refreshes, results };`,
    check: (r, server, id) => {
      assert.equal(r.refreshes.length, 1, `${r.refreshes.length} refreshes`);
      assert.deepEqual(
        r.results.filter((x) => x.kind !== 'ok'),
        [],
      );
      assert.ok(Array.from({ length: 64 }, (_, i) => server.plants.has(id + i)).every(Boolean));
    },
  },
  {
    name: 'a refresh that settles after its call timed out, or hangs and its call is aborted, is forgotten: the next call refreshes',
    browser: true,
    body: `const refreshes = [];
      const abort = new AbortController();
      const answers = [
        () => new Promise((r) => setTimeout(() => r('wrong-token-0123'), 800)),
        () => { setTimeout(() => abort.abort(new Error('user left')), 50); return new Promise(() => {}); },
        () => '${TOKEN}',
      ];
      const client = new api.PlantStoreClient({ baseUrl: base + '/s/ok', timeoutMs: 500,
        getToken: ({ refresh }) => (refresh ? answers[refreshes.push(1) - 1]() : 'expired-token-01') });
      const late = await client.createPlant({ id, name: 'Fern' }).then(() => seen(), seen);
      const hung = await client.createPlant({ id: id + 1, name: 'Fern' }, { signal: abort.signal }).then(() => seen(), seen);
      await new Promise((r) => setTimeout(r, 400));
      const next = await client.createPlant({ id: id + 2, name: 'Fern' }).then(() => seen(), seen);
      return { late, hung, next, refreshes };`,
    check: (r, server, id) => {
      assert.deepEqual([r.late.kind, r.late.attempts], ['timeout', 1]);
      assert.match(
        r.late.message,
        /options\.getToken gave no token within options\.timeoutMs \(500 ms\)/,
      );
      assert.deepEqual([r.hung.kind, r.hung.attempts, r.hung.cause], ['aborted', 1, 'user left']);
      assert.equal(r.next.kind, 'ok', r.next.message);
      assert.equal(r.refreshes.length, 3, 'each call that needed a refresh asked for its own');
      assert.ok(server.plants.has(id + 2));
    },
  },
  {
    name: "getToken's answer is judged, never called: a function, an object, a number are config errors",
    browser: true,
    body: `const results = [];
      for (const got of [() => '${TOKEN}', { token: '${TOKEN}' }, 42])
        results.push(await call(api, base, 'ok', id, { token: undefined, getToken: () => got }));
      return results;`,
    check: (results, server, id) => {
      assert.deepEqual(
        results.map((r) => [r.kind, r.attempts, r.message]),
        ['function', 'object', 'number'].map((what) => [
          'config',
          0,
          `options.getToken returned ${what}; it must return the token, a string`,
        ]),
      );
      assert.equal(server.requests(id).length, 0, 'nothing sent');
    },
  },
  {
    name: 'a 503 may come after the write: maybeCreated, and the duplicate a retry meets says the plant may exist',
    browser: true,
    body: `return [await call(api, base, '503', id),
      await call(api, base, 'stored503,ok', id + 1, { retry: { attempts: 2, baseDelayMs: 10 } })];`,
    check: ([plain, retried], server, id) => {
      assert.deepEqual(
        [plain.kind, plain.status, plain.maybeCreated],
        ['unexpected_status', 503, true],
      );
      assert.deepEqual(
        [retried.kind, retried.code, retried.attempts, retried.maybeCreated, retried.cause],
        ['rejected', 3, 2, true, 'unexpected_status'],
      );
      assert.match(
        retried.message,
        /the plant may exist: an earlier attempt of this call may have created it$/,
      );
      assert.ok(server.plants.has(id + 1), 'the first attempt created it');
    },
  },
  {
    name: 'a refresh that fails, a second 401, a fixed token: unauthorized',
    body: `const failing = new api.PlantStoreClient({ baseUrl: base + '/s/ok',
        getToken: async ({ refresh }) => { if (refresh) throw new Error('login needed'); return 'expired-token-01'; } });
      const stale = new api.PlantStoreClient({ baseUrl: base + '/s/ok', getToken: () => 'expired-token-01' });
      const errors = [];
      for (const client of [failing, stale]) await client.createPlant({ id, name: 'x' }).catch((e) => errors.push(e));
      const fixed = await call(api, base, 'ok', id, { token: 'wrong-token-0123' });
      return { failed: seen(errors[0]), again: seen(errors[1]), fixed, errors };`,
    check: (r) => {
      assert.deepEqual(
        [r.failed.kind, r.failed.status, r.failed.attempts, r.failed.cause],
        ['unauthorized', 401, 1, 'login needed'],
      );
      assert.deepEqual(
        [r.again.kind, r.again.status, r.again.attempts, r.again.cause],
        ['unauthorized', 401, 2, 'unauthorized'],
      );
      assert.deepEqual([r.fixed.kind, r.fixed.status, r.fixed.attempts], ['unauthorized', 401, 1]);
    },
  },
  {
    name: 'hooks: a traceparent on every attempt, never the token, not even in headers a hook keeps; a throwing hook ends the call',
    browser: true,
    body: `const parent = '00-' + '4bf92f3577b34da6a3ce929d0e0e4736' + '-' + '00f067aa0ba902b7' + '-01';
      const sawAuth = [];
      const kept = [];
      const traced = await call(api, base, '503,ok', id, { retry: { baseDelayMs: 10 },
        beforeAttempt: ({ headers }) => { sawAuth.push(headers.has('authorization')); kept.push(headers); headers.set('traceparent', parent); } });
      const keptAfter = kept.map((headers) => [...headers].flat().join(' '));
      const threw = await call(api, base, 'ok', id + 1, { beforeAttempt: () => { throw new Error('no trace'); } });
      const auth = await call(api, base, 'ok', id + 2, { beforeAttempt: ({ headers }) => headers.set('Authorization', 'Bearer x') });
      const after = await call(api, base, 'ok', id + 3, { afterAttempt: () => { throw new Error('log full'); } });
      return { traced, sawAuth, keptAfter, threw, auth, after };`,
    check: (r, server, id) => {
      assert.equal(r.traced.kind, 'ok');
      assert.deepEqual(r.sawAuth, [false, false]);
      // What the hook kept, read once both attempts were sent: its traceparent, no token.
      assert.equal(r.keptAfter.length, 2);
      for (const headers of r.keptAfter) {
        assert.match(headers, /traceparent 00-4bf9/);
        assert.doesNotMatch(headers, /authorization|bearer|fresh-token/i);
      }
      assert.deepEqual(
        server.requests(id).map((e) => e.headers.traceparent),
        Array(2).fill('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'),
      );
      assert.deepEqual([r.threw.kind, r.threw.attempts, r.threw.cause], ['config', 0, 'no trace']);
      assert.equal(server.requests(id + 1).length, 0, 'nothing sent after beforeAttempt threw');
      assert.deepEqual([r.auth.kind, r.auth.attempts], ['config', 0]);
      // afterAttempt threw after the 200: the plant exists, and the error says it may.
      assert.deepEqual(
        [r.after.kind, r.after.attempts, r.after.maybeCreated, r.after.cause],
        ['config', 1, true, 'log full'],
      );
      assert.ok(server.plants.has(id + 3));
    },
  },
  {
    name: "Idempotency-Key: one quoted UUID v4 on every attempt of a call, another per call, or the call's own",
    body: `await call(api, base, '503,ok', id, { retry: { baseDelayMs: 10 }, idempotencyKey: true });
      await call(api, base, 'ok', id + 1, { idempotencyKey: true });
      await call(api, base, 'ok', id + 2, {}, { idempotencyKey: 'order-42' });
      return {};`,
    check: (_r, server, id) => {
      const keys = [0, 1, 2].map((i) =>
        server.requests(id + i).map((e) => e.headers['idempotency-key']),
      );
      assert.equal(keys[0].length, 2);
      assert.equal(keys[0][0], keys[0][1], 'the same key on both attempts');
      assert.match(
        keys[0][0],
        /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/,
      );
      assert.notEqual(keys[1][0], keys[0][0], 'another call, another key');
      assert.deepEqual(keys[2], ['"order-42"']);
    },
  },
  {
    name: "idempotencyKeyFormat 'bare': the key's bytes alone, the same on every attempt; past keyLifetimeMs no attempt sends it again",
    browser: true,
    body: `await call(api, base, '503,ok', id, { retry: { baseDelayMs: 10 }, idempotencyKey: true,
        idempotencyKeyFormat: 'bare' });
      const expired = await call(api, base, '503s1,ok', id + 1, { retry: { maxDelayMs: 5000 },
        idempotencyKey: true, keyLifetimeMs: 500 });
      const wrong = [{ idempotencyKeyFormat: 'plain' }, { keyLifetimeMs: 0.5 }].map((options) => {
        try {
          return new api.PlantStoreClient({ baseUrl: base + '/s/ok', token: '${TOKEN}', ...options }) && {};
        } catch (e) {
          return seen(e);
        }
      });
      return { expired, wrong };`,
    check: (r, server, id) => {
      const keys = server.requests(id).map((e) => e.headers['idempotency-key']);
      assert.equal(keys.length, 2);
      assert.equal(keys[0], keys[1], 'the same key on both attempts');
      assert.match(
        keys[0],
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      // The 503 may have created the plant, and its Retry-After of 1 s comes after the key's 500 ms.
      assert.deepEqual(
        [r.expired.kind, r.expired.status, r.expired.attempts, r.expired.maybeCreated],
        ['unexpected_status', 503, 1, true],
      );
      assert.equal(
        server.requests(id + 1).length,
        1,
        'not sent again with a key the server may have forgotten',
      );
      assert.deepEqual(
        r.wrong.map((e) => [e.kind, e.message]),
        [
          ['config', "options.idempotencyKeyFormat must be 'quoted' or 'bare', got 'plain'"],
          [
            'config',
            'options.keyLifetimeMs must be a whole number of milliseconds from 1 to 9007199254740991, or Infinity',
          ],
        ],
      );
      assert.equal(server.requests(id + 2).length, 0);
    },
  },
  {
    name: 'under retries, 64 in flight: every plant stored exactly once',
    // An attempt's own 3 s is far beyond what an answer takes, even under load, and a third of the slow one's.
    body: `const scripts = ['503,ok', 'reset,ok', 'slowok9000', '429s0,ok'];
      return Promise.all(Array.from({ length: 64 }, (_, i) => call(api, base, scripts[i % 4], id + i,
        { retry: { attempts: 4, baseDelayMs: 10, attemptTimeoutMs: 3000 }, timeoutMs: 30000 })));`,
    check: (results, server, id) => {
      const ids = Array.from({ length: 64 }, (_, i) => id + i);
      assert.ok(
        ids.every((i) => server.plants.has(i)),
        'all 64 stored',
      );
      const stores = server.log.filter(
        (e) => ids.includes(e.id) && !/^(\d{3}|429s0|reset)$/.test(e.step),
      );
      const storedOnce = new Set(stores.map((e) => e.id));
      assert.equal(storedOnce.size, 64);
      // A call whose attempt timed out after storing meets the duplicate: the documented outcome.
      for (const [i, r] of results.entries()) {
        if (r.kind === 'ok') continue;
        assert.deepEqual(
          [r.kind, r.code, r.maybeCreated],
          ['rejected', 3, true],
          `call ${i}: ${r.message}`,
        );
      }
      console.log(
        `  64 in flight: ${results.filter((r) => r.kind === 'ok').length} resolved, ` +
          `${results.filter((r) => r.kind === 'rejected').length} rejected as duplicates after a timed-out attempt`,
      );
    },
  },
];

let dir;
let api;
let server;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'retries-'));
  execFileSync('tar', ['-xzf', tarball(dir), '-C', dir]);
  api = await import(pathToFileURL(join(dir, 'package/node.mjs')).href);
  new Function(HELPERS)();
  server = await startScripted({ token: TOKEN });
});

after(() => {
  server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What the caller saw, in one line, for the closing note. */
const line = (r) =>
  Array.isArray(r)
    ? r.map(line).join(' | ')
    : r.kind === undefined
      ? Object.entries(r)
          .map(([key, v]) =>
            v?.kind
              ? `${key}: ${line(v)}`
              : key === 'refreshes'
                ? `${v.length} refresh(es)`
                : key === 'results'
                  ? `${v.filter((x) => x.kind === 'ok').length}/${v.length} resolved`
                  : '',
          )
          .filter(Boolean)
          .join('; ')
      : `${r.kind}${r.status ? ` ${r.status}` : ''}${r.code !== undefined ? ` code ${r.code}` : ''}` +
        `${r.attempts !== undefined ? `, attempts ${r.attempts}` : ''}${r.maybeCreated ? ', maybeCreated' : ''}` +
        `${r.retryAfterMs !== undefined ? `, retryAfterMs ${r.retryAfterMs}` : ''}${r.cause ? `, cause ${r.cause}` : ''}` +
        `${r.ms !== undefined ? ` (${Math.round(r.ms)} ms)` : ''}`;

/**
 * That the call for `id` ended before its Retry-After of `ms` would have let it send again: the
 * next call, sent once it had ended, reached the server sooner than that after its first request.
 */
function endedBeforeTheWait(server, id, ms) {
  const [first] = server.requests(id);
  const [next] = server.requests(id + 1);
  assert.ok(
    next.at - first.at < ms,
    `the next call arrived ${Math.round(next.at - first.at)} ms after the first`,
  );
}

let nextId = 1000;
const AsyncFunction = (async () => {}).constructor;

for (const c of CASES) {
  test(`Node: ${c.name}`, { timeout: 30_000 }, async () => {
    nextId += 100;
    const id = nextId;
    const r = await new AsyncFunction('api', 'base', 'id', c.body)(api, server.url, id);
    console.log(`  Node, ${c.name}: ${line(r)}`);
    await c.check(r, server, id);
    for (const e of r.errors ?? []) for (const token of TOKENS) assert.equal(leak(e, token), null);
  });
}

test('Chromium, from a page of another origin: the cases marked browser', {
  timeout: 120_000,
}, async (t) => {
  const site = await startPackagePage(
    dir,
    `
    import * as api from '/package/index.js';
    ${HELPERS}
    globalThis.api = api;
    globalThis.result = true;`,
  );
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage();
    const pageErrors = [];
    tab.on('pageerror', (err) => pageErrors.push(String(err)));
    await tab.goto(site.url);
    await tab.waitForFunction(() => globalThis.result === true, null, { timeout: 60_000 });
    for (const c of CASES.filter((x) => x.browser)) {
      await t.test(c.name, async () => {
        nextId += 100;
        const id = nextId;
        const r = await tab.evaluate(
          ([body, base, id]) =>
            new (async () => {}).constructor('api', 'base', 'id', body)(globalThis.api, base, id),
          [c.body, server.url, id],
        );
        console.log(`  Chromium, ${c.name}: ${line(r)}`);
        await c.check(r, server, id);
      });
    }
    assert.deepEqual(pageErrors, []);
  } finally {
    await browser.close();
    site.stop();
  }
});
