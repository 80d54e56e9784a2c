// The page side of tests/js/hardening.test.mjs: runs the hostile corpus, the broken servers, the
// memory and load runs inside Chromium, and hands plain, small summaries back to Node, which asserts.
//
// It loads the wasm-bindgen module of the build (the package's entries are this module bundled with a
// loader), to keep the instance's exports and so its `memory`.
import init, {
  createPlant,
  validateNewPlant,
  PlantStoreClient,
  PlantStoreError,
} from '/pkg/plant_store_client.js';
import { buildCorpus } from './corpus.js';

const exports = await init({ module_or_path: '/pkg/plant_store_client_bg.wasm' });
// The build renames the .wasm's exports (scripts/finish-pkg.mjs): the memory is the one export
// that is a WebAssembly.Memory.
const wasmMemory = Object.values(exports).find((value) => value instanceof WebAssembly.Memory);

let TOKEN = '';
let nextId = 1_000_000;
const fresh = () => nextId++;
const ORIGIN = location.origin;
const defaults = () => ({ baseUrl: ORIGIN, token: TOKEN });

/** The wasm linear memory, in bytes. */
const memory = () => wasmMemory.buffer.byteLength;
const stats = async () => (await fetch('/__test/stats')).json();
const short = (text, max = 200) =>
  typeof text === 'string' && text.length > max ? `${text.slice(0, max)}…` : text;

/** Every 8-character piece of the token found in `text`: a whole or a partial leak. */
function leaksIn(text) {
  if (typeof text !== 'string') return false;
  for (let i = 0; i + 8 <= TOKEN.length; i++) if (text.includes(TOKEN.slice(i, i + 8))) return true;
  return false;
}

/** Where the token shows in an error: message, String(err), JSON.stringify(err), stack, issues. */
function secretLeaks(err, checkCause) {
  const places = {
    message: () => err.message,
    String: () => String(err),
    JSON: () => JSON.stringify(err),
    stack: () => err.stack,
    issues: () => JSON.stringify(err.issues ?? []),
    // A real fetch failure's cause is the browser's TypeError: it must not carry the request either.
    // (Elsewhere the cause is the caller's own failure, which may hold what the caller put in it.)
    cause: () => (checkCause ? String(err.cause) : ''),
  };
  return Object.entries(places)
    .filter(([, read]) => leaksIn(read()))
    .map(([where]) => where);
}

/** A failure, summarised for Node. */
function describe(err, checkCause = false) {
  const isError = PlantStoreError.is(err) && err instanceof PlantStoreError && err instanceof Error;
  if (!isError) return { ok: false, foreign: true, text: short(String(err)) };
  return {
    ok: false,
    name: err.name,
    kind: err.kind,
    status: err.status,
    code: err.code,
    message: short(err.message, 600),
    messageChars: err.message.length,
    hasCause: 'cause' in err,
    cause:
      'cause' in err
        ? short(err.cause instanceof Error ? err.cause.message : String(err.cause), 100)
        : undefined,
    issues: err.issues?.map((i) => ({
      path: short(i.path, 60),
      code: i.code,
      message: short(i.message, 300),
      // The message names its field: the first 40 characters of the key for unknown ones.
      named: i.message.includes(Array.from(i.path).slice(0, 40).join('')),
    })),
    leaks: secretLeaks(err, checkCause),
  };
}

const plantSummary = (p) => ({
  ok: true,
  name: short(p?.name, 60),
  nameLength: p?.name?.length,
  tag: short(p?.tag, 60),
  keys: Object.keys(p ?? {}),
});

/** A valid call right after something hostile: proves the module still works. */
async function validCall() {
  const id = fresh();
  try {
    const plant = await createPlant({ id, name: `after-${id}` }, defaults());
    return plant.name === `after-${id}` ? 'ok' : `wrong answer ${JSON.stringify(plant)}`;
  } catch (err) {
    return `failed: ${err?.kind} ${err?.message}`;
  }
}

async function call(entry) {
  if (entry.construct) {
    const client = new PlantStoreClient(entry.options);
    return client.createPlant(entry.plant);
  }
  if ('callOptions' in entry)
    return new PlantStoreClient(defaults()).createPlant(entry.plant, entry.callOptions);
  return createPlant(entry.plant, 'options' in entry ? entry.options : defaults());
}

async function storedMatches(expected) {
  const response = await fetch(`/__test/plants/${expected.id}`);
  if (!response.ok) return `not stored (${response.status})`;
  const got = await response.json();
  const same = got.name === expected.name && (got.tag ?? undefined) === (expected.tag ?? undefined);
  return same ? 'ok' : `stored ${short(JSON.stringify(got))}`;
}

/** Runs one entry: the call, the server's counters around it, what was stored, a valid call after. */
async function runEntry(entry) {
  entry.prepare?.(entry);
  const before = await stats();
  const started = performance.now();
  let outcome, returned;
  try {
    const plant = await call(entry);
    outcome = plantSummary(plant);
    const sent = entry.expect.stored ?? entry.expect.returns;
    if (sent)
      returned =
        plant.name === sent.name && plant.tag === sent.tag
          ? 'ok'
          : `returned ${short(JSON.stringify(plant))}`;
  } catch (err) {
    outcome = describe(err, entry.kind === 'fault');
  }
  const ms = performance.now() - started;
  const after = await stats();
  const stored = entry.expect.stored ? await storedMatches(entry.expect.stored) : undefined;
  let validated;
  if (entry.kind === 'plant' && !entry.noRevalidate) {
    try {
      const result = validateNewPlant(entry.plant);
      validated = result.ok
        ? { ok: true }
        : { ok: false, issues: result.issues.map((i) => [short(i.path, 60), i.code]) };
    } catch (err) {
      validated = { threw: short(String(err)) };
    }
  }
  const afterCall = await validCall();
  const afterStats = await stats();
  return {
    name: entry.name,
    family: entry.family,
    kind: entry.kind,
    expect: { ...entry.expect, stored: entry.expect.stored ? true : undefined },
    outcome,
    ms,
    requests: after.requests - before.requests,
    plants: after.plants - before.plants,
    stored,
    returned,
    validated,
    afterCall,
    afterRequests: afterStats.requests - after.requests,
  };
}

async function runAll(entries) {
  const results = [];
  for (const entry of entries) results.push(await runEntry(entry));
  return results;
}

globalThis.harness = {
  memory,

  setup({ token }) {
    TOKEN = token;
    return { memory: memory(), origin: ORIGIN };
  },

  /** The hostile corpus: every entry, run one after another. */
  async corpus() {
    return runAll(buildCorpus({ token: TOKEN, origin: ORIGIN, fresh }));
  },

  /** Broken servers: each fault answered to a valid plant. `recorderPort`: another origin on loopback. */
  async faults({ recorderPort }) {
    const at = (path, extra = {}) => ({ ...defaults(), baseUrl: ORIGIN + path, ...extra });
    const plant = () => ({ id: fresh(), name: 'Fern' });
    const entry = (name, options, expect, extra = {}) => ({
      name,
      kind: 'fault',
      plant: plant(),
      options,
      expect,
      ...extra,
    });
    const fault = (name, expect) => entry(`fault ${name}`, at(`/__test/fault/${name}`), expect);
    const entries = [
      fault('200-not-json', { kind: 'invalid_response', status: 200, requests: 1 }),
      fault('200-wrong-shape', { kind: 'invalid_response', status: 200, requests: 1 }),
      fault('200-empty', { kind: 'invalid_response', status: 200, requests: 1 }),
      fault('200-lone-surrogate', { kind: 'invalid_response', status: 200, requests: 1 }),
      fault('200-tag-null', { kind: 'invalid_response', status: 200, requests: 1 }),
      // A 200 is read up to six bytes per byte of the name and tag it echoes, plus 64 KiB: 65560 bytes for 'Fern'.
      fault('200-huge', {
        kind: 'invalid_response',
        status: 200,
        requests: 1,
        includes: '65560 bytes',
        maxGrowth: 0,
      }),
      fault('200-name-twice', {
        kind: 'invalid_response',
        status: 200,
        requests: 1,
        includes: 'name appears more than once',
      }),
      // A repeated key the client does not read is allowed (RFC 8259); 80,000 of them are read (in
      // linear time: bench/load.mjs times it). The answer is 0.9 MiB, so the call sends a tag of
      // 200,000 characters, which lets the client read 1.2 MiB.
      entry(
        'fault 200-many-keys',
        at('/__test/fault/200-many-keys'),
        { ok: true, returns: { name: 'Fern' }, requests: 1, maxGrowth: 2 << 20 },
        { plant: { id: fresh(), name: 'Fern', tag: 'x'.repeat(200_000) } },
      ),
      fault('204', { kind: 'unexpected_status', status: 204, requests: 1 }),
      fault('400-not-error', { kind: 'invalid_response', status: 400, requests: 1 }),
      fault('400-html', {
        kind: 'invalid_response',
        status: 400,
        requests: 1,
        includes: '<h1>Oops</h1>',
      }),
      fault('500-html', {
        kind: 'unexpected_status',
        status: 500,
        requests: 1,
        includes: '<h1>Oops</h1>',
      }),
      fault('401', {
        kind: 'unauthorized',
        status: 401,
        code: 4,
        requests: 1,
        includes: 'who are you?',
      }),
      fault('403', {
        kind: 'unexpected_status',
        status: 403,
        code: 5,
        requests: 1,
        includes: 'not yours',
      }),
      fault('404', {
        kind: 'unexpected_status',
        status: 404,
        code: 6,
        requests: 1,
        includes: 'no such route',
      }),
      fault('409', { kind: 'unexpected_status', status: 409, code: 7, requests: 1 }),
      fault('503-error', {
        kind: 'unexpected_status',
        status: 503,
        code: 8,
        requests: 1,
        includes: 'try later',
      }),
      fault('huge-error', {
        kind: 'unexpected_status',
        status: 500,
        requests: 1,
        maxChars: 400,
        maxGrowth: 1 << 20,
      }),
      fault('close-mid-body', { kind: 'network', requests: 1 }),
      fault('echo-token-400', {
        kind: 'rejected',
        status: 400,
        code: 2,
        requests: 1,
        includes: '[redacted]',
      }),
      fault('echo-token-401', {
        kind: 'unauthorized',
        status: 401,
        code: 4,
        requests: 1,
        includes: '[redacted]',
      }),
      fault('echo-token-500', { kind: 'unexpected_status', status: 500, requests: 1 }),
      // The delay route answers 200 after 3 s: a timeout (or an abort) is the outcome only when it
      // ended the call first, ten times sooner, whatever the machine's load.
      entry('slower than the timeout', at('/__test/delay/3000', { timeoutMs: 300 }), {
        kind: 'timeout',
        requests: 1,
        includes: '300 ms',
      }),
      entry(
        'signal already aborted',
        at('', { signal: AbortSignal.abort(new Error('caller gave up')) }),
        { kind: 'aborted', requests: 0, cause: 'caller gave up' },
      ),
      entry(
        'signal aborted mid-request',
        at('/__test/delay/3000'),
        { kind: 'aborted', requests: 1 },
        {
          prepare: (e) => {
            e.options.signal = AbortSignal.timeout(200);
          },
        },
      ),
      entry(
        'per-call signal already aborted',
        at(''),
        { kind: 'aborted', requests: 0 },
        { callOptions: { signal: AbortSignal.abort() } },
      ),
      ...[302, 307].map((status) =>
        entry(
          `redirect ${status} to another origin`,
          at(`/__test/redirect/${status}/${recorderPort}`),
          { kind: 'unexpected_status', requests: 1 },
        ),
      ),
      entry('redirect 307 within the origin', at(`/__test/redirect/307/${location.port}`), {
        kind: 'unexpected_status',
        requests: 1,
      }),
    ];
    const results = [];
    for (const e of entries) {
      const before = memory();
      const result = await runEntry(e);
      results.push({ ...result, growth: memory() - before });
    }
    return results;
  },

  /** `n` invalid calls in a row (after a warm-up), with the wasm memory before and after. */
  async invalidCalls(n, warmup = 1000) {
    const big = 'n'.repeat(1 << 20);
    const hostile = [
      () => ({ id: NaN, name: 'x' }),
      () => ({ id: 2n ** 63n, name: big }),
      () => ({ id: 1, name: `${big}\uD800` }),
      () => ({ id: 1, name: 'x', tag: null, tags: 'y', ['k'.repeat(1000)]: 1 }),
      () => ({
        get id() {
          throw new Error('boom');
        },
        name: 'x',
      }),
      () =>
        new Proxy(
          {},
          {
            ownKeys() {
              throw new Error('no keys');
            },
          },
        ),
      () => [1, 2, 3],
      () => new Date(),
      () => Object.assign(Object.create(null), { id: '1', name: 2 }),
    ];
    let failures = 0;
    const run = async (count) => {
      for (let i = 0; i < count; i++) {
        const value = hostile[i % hostile.length]();
        try {
          await createPlant(value, defaults());
          failures++;
        } catch (err) {
          if (err?.kind !== 'validation') failures++;
        }
        if (validateNewPlant(value).ok) failures++;
      }
    };
    const before = await stats();
    await run(warmup);
    const memoryBefore = memory();
    const started = performance.now();
    await run(n);
    const ms = performance.now() - started;
    const memoryAfter = memory();
    const after = await stats();
    return {
      calls: n,
      warmup,
      failures,
      memoryBefore,
      memoryAfter,
      ms,
      requests: after.requests - before.requests,
      afterCall: await validCall(),
    };
  },

  /** `n` createPlant calls, `inflight` at a time, through one client; stops issuing at `deadlineMs`. */
  async load({ n, inflight, base, deadlineMs }) {
    const client = new PlantStoreClient(defaults());
    const memoryBefore = memory();
    const started = performance.now();
    const results = new Array(n).fill(null);
    let next = 0;
    let maxInflight = 0;
    let current = 0;
    const worker = async () => {
      while (next < n && performance.now() - started < deadlineMs) {
        const i = next++;
        const id = base + i;
        current++;
        maxInflight = Math.max(maxInflight, current);
        try {
          const plant = await client.createPlant({
            id,
            name: `load-${i}`,
            tag: i % 2 ? `t${i}` : undefined,
          });
          results[i] =
            plant.name === `load-${i}` && plant.tag === (i % 2 ? `t${i}` : undefined)
              ? 'ok'
              : 'wrong answer';
        } catch (err) {
          results[i] = `${err?.kind}: ${short(err?.message, 100)}`;
        }
        current--;
      }
    };
    await Promise.all(Array.from({ length: inflight }, worker));
    const ms = performance.now() - started;
    const failures = {};
    let ok = 0;
    let unresolved = 0;
    for (const r of results) {
      if (r === 'ok') ok++;
      else if (r === null) unresolved++;
      else failures[r] = (failures[r] ?? 0) + 1;
    }
    return {
      n,
      inflight,
      maxInflight,
      ok,
      unresolved,
      failures,
      ms,
      memoryBefore,
      memoryAfter: memory(),
      afterCall: await validCall(),
    };
  },

  /** Values inherited from a polluted Object.prototype must not reach the request or the options. */
  async pollution() {
    const before = await stats();
    const seen = { fetch: 0, getToken: 0 };
    const polluted = {
      tag: 'polluted-tag',
      id: 424242,
      headers: { 'X-Polluted': 'yes' },
      fetch(...args) {
        seen.fetch++;
        return fetch(...args);
      },
      getToken() {
        seen.getToken++;
        return 'polluted';
      },
      timeoutMs: 1,
    };
    const results = {};
    try {
      for (const [key, value] of Object.entries(polluted)) {
        Object.defineProperty(Object.prototype, key, {
          value,
          configurable: true,
          writable: true,
          enumerable: false,
        });
      }
      const id = fresh();
      try {
        const plant = await createPlant(
          { id, name: 'clean' },
          { baseUrl: `${ORIGIN}/__test/delay/20`, token: TOKEN },
        );
        results.created = plantSummary(plant);
      } catch (err) {
        results.created = describe(err);
      }
      try {
        await createPlant({ name: 'no id' }, defaults());
        results.noId = { ok: true };
      } catch (err) {
        results.noId = describe(err);
      }
      const v = validateNewPlant({ id: 1, name: 'x' });
      results.validated = v.ok
        ? { ok: true, keys: Object.keys(v.value), tag: v.value.tag }
        : { ok: false };
      results.id = id;
    } finally {
      for (const key of Object.keys(polluted)) delete Object.prototype[key];
    }
    results.stored = await storedMatches({ id: results.id, name: 'clean' });
    const last = await (await fetch('/__test/last')).json();
    results.lastHeaders = Object.keys(last?.headers ?? {});
    results.seen = seen;
    results.afterCall = await validCall();
    const after = await stats();
    results.requests = after.requests - before.requests;
    return results;
  },
};
globalThis.harnessReady = true;
