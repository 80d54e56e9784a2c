// What the JS API answers to about 2,700 inputs: the hardening corpus's NewPlants and options
// (tests/hardening/corpus.js), then every option, retry and call option with forty values of every
// kind (throwing getters, revoked Proxies, lone surrogates, BigInts, arrays, AbortSignals, …),
// unknown keys, and a polluted Object.prototype; each answer with the requests a mock fetch saw.
// Two builds that answer alike print the same JSON (the idempotency keys aside): a change to how
// values are read is checked against the build before it, message for message.
//   node bench/golden.mjs PKG_DIR | sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/UUID/g' > answers.json
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
// The corpus reads the page's origin and makes a DOM element.
globalThis.location = { origin: 'http://127.0.0.1:9' };
class HTMLDivElement {}
globalThis.document = { createElement: () => new HTMLDivElement() };
const pkg = process.argv[2];
const api = await import(pathToFileURL(join(pkg, 'node.mjs')).href);
const { buildCorpus } = await import(new URL('../tests/hardening/corpus.js', import.meta.url).href);
const TOKEN = 'Qz8-g0lden.T0ken_Xw4~pL2';
let n = 1000;
const corpus = buildCorpus({ token: TOKEN, fresh: () => n++ });
const seen = [];
const mockFetch = async (url, init) => {
  seen.push({
    url,
    headers: [...new Headers(init.headers)],
    body: String(init.body).slice(0, 200),
    keys: Object.keys(init).sort(),
  });
  return new Response('{"name":"Fern"}', { status: 200 });
};
globalThis.fetch = mockFetch;
const short = (s) =>
  typeof s === 'string' && s.length > 300 ? `${s.slice(0, 150)}…(${s.length})…${s.slice(-150)}` : s;
const describe = (v) => {
  try {
    if (v instanceof Error)
      return {
        error: v.name,
        message: short(v.message),
        kind: v.kind,
        cause: v.cause === undefined ? undefined : describe(v.cause),
      };
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'symbol') return String(v);
    if (v && typeof v === 'object')
      return JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : short(x))));
    return v;
  } catch (e) {
    return `<undescribable ${e}>`;
  }
};
const outcome = async (f) => {
  const from = seen.length;
  try {
    const value = await f();
    return { ok: describe(value), requests: seen.slice(from) };
  } catch (e) {
    if (!api.PlantStoreError.is(e)) return { threw: describe(e) };
    return {
      kind: e.kind,
      message: short(e.message),
      status: e.status,
      code: e.code,
      attempts: e.attempts,
      maybeCreated: e.maybeCreated,
      issues: e.issues?.map((i) => [short(i.path), i.code, short(i.message)]),
      cause: describe(e.cause),
      keys: Object.keys(e),
      requests: seen.slice(from),
    };
  }
};
const out = [];
const base = { baseUrl: 'http://127.0.0.1:9/api', token: TOKEN };
for (const entry of corpus) {
  const r = { name: entry.name };
  if (entry.kind === 'plant') {
    r.validate = await outcome(() => api.validateNewPlant(entry.plant));
    if (!entry.noRevalidate) r.create = await outcome(() => api.createPlant(entry.plant, base));
  } else if (entry.callOptions !== undefined) {
    r.call = await outcome(() =>
      new api.PlantStoreClient(base).createPlant(entry.plant, entry.callOptions),
    );
  } else if (entry.construct) {
    r.construct = await outcome(() => new api.PlantStoreClient(entry.options));
  } else {
    r.create = await outcome(() => api.createPlant(entry.plant, entry.options));
    r.construct = await outcome(() => {
      new api.PlantStoreClient(entry.options);
      return 'made';
    });
  }
  out.push(r);
}
// More: retry, idempotencyKey, call options, nested objects, hooks, timeouts, getToken.
const { proxy: revokedProxy, revoke } = Proxy.revocable({}, {});
revoke();
const thrower = (key) =>
  Object.defineProperty({}, key, {
    get() {
      throw new Error(`got ${key}`);
    },
    enumerable: true,
  });
const values = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  1,
  1.5,
  -1,
  3,
  11,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 32 + 1,
  2 ** 53,
  NaN,
  Infinity,
  1n,
  2n ** 70n,
  '',
  'x',
  '3',
  '\uD800',
  'a\uFFFDb',
  Symbol('s'),
  () => 1,
  [],
  [1],
  {},
  { attempts: 2 },
  new Date(0),
  revokedProxy,
  new Proxy({}, {}),
  new Proxy([], {}),
  Object.create(null),
  new AbortController().signal,
  AbortSignal.abort('r'),
  new Headers(),
  thrower('x'),
  new Proxy(
    {},
    {
      getPrototypeOf() {
        throw new Error('proto');
      },
    },
  ),
  new Proxy(
    { a: 1 },
    {
      ownKeys() {
        throw new Error('keys');
      },
    },
  ),
];
const label = (v) => {
  try {
    return typeof v === 'symbol'
      ? String(v)
      : typeof v === 'bigint'
        ? `${v}n`
        : typeof v === 'function'
          ? 'fn'
          : (JSON.stringify(v) ?? String(v));
  } catch {
    return typeof v;
  }
};
const optionKeys = [
  'baseUrl',
  'token',
  'getToken',
  'fetch',
  'signal',
  'timeoutMs',
  'headers',
  'retry',
  'idempotencyKey',
  'beforeAttempt',
  'afterAttempt',
];
for (const key of optionKeys)
  for (const [i, v] of values.entries()) {
    const options = { ...base, [key]: v };
    if (key === 'getToken') delete options.token;
    out.push({
      name: `options.${key} = #${i} ${label(v)}`,
      create: await outcome(() => api.createPlant({ id: 1, name: 'x' }, options)),
    });
  }
for (const key of [
  'attempts',
  'baseDelayMs',
  'maxDelayMs',
  'gatewayErrors',
  'attemptTimeoutMs',
  'atempts',
  'Attempts',
  'other',
])
  for (const [i, v] of values.entries()) {
    out.push({
      name: `retry.${key} = #${i} ${label(v)}`,
      create: await outcome(() =>
        api.createPlant({ id: 1, name: 'x' }, { ...base, retry: { [key]: v } }),
      ),
    });
    out.push({
      name: `call retry.${key} = #${i} ${label(v)}`,
      call: await outcome(() =>
        new api.PlantStoreClient(base).createPlant({ id: 1, name: 'x' }, { retry: { [key]: v } }),
      ),
    });
  }
for (const key of ['signal', 'retry', 'idempotencyKey', 'signl', 'Retry', 'timeoutMs'])
  for (const [i, v] of values.entries()) {
    out.push({
      name: `call options.${key} = #${i} ${label(v)}`,
      call: await outcome(() =>
        new api.PlantStoreClient(base).createPlant({ id: 1, name: 'x' }, { [key]: v }),
      ),
    });
  }
for (const [i, v] of values.entries()) {
  out.push({
    name: `call options = #${i} ${label(v)}`,
    call: await outcome(() => new api.PlantStoreClient(base).createPlant({ id: 1, name: 'x' }, v)),
  });
  out.push({
    name: `headers.X-A = #${i} ${label(v)}`,
    create: await outcome(() =>
      api.createPlant({ id: 1, name: 'x' }, { ...base, headers: { 'X-A': v } }),
    ),
  });
  out.push({
    name: `NewPlant = #${i} ${label(v)}`,
    validate: await outcome(() => api.validateNewPlant(v)),
  });
  for (const f of ['id', 'name', 'tag'])
    out.push({
      name: `NewPlant.${f} = #${i} ${label(v)}`,
      validate: await outcome(() => api.validateNewPlant({ id: 1, name: 'n', [f]: v })),
    });
  out.push({
    name: `getToken returns #${i} ${label(v)}`,
    create: await outcome(() =>
      api.createPlant({ id: 1, name: 'x' }, { baseUrl: base.baseUrl, getToken: () => v }),
    ),
  });
}
for (const k of [
  'baseurl',
  'tokn',
  'fetcher',
  'signals',
  'timeout',
  'header',
  'retries',
  'idempotency_key',
  'beforeattempt',
  'x'.repeat(50),
  'k\uD800',
  '__proto__',
]) {
  const o = { ...base };
  Object.defineProperty(o, k, { value: 1, enumerable: true });
  out.push({
    name: `unknown ${k}`,
    create: await outcome(() => api.createPlant({ id: 1, name: 'x' }, o)),
  });
}
out.push({
  name: 'token+getToken',
  create: await outcome(() =>
    api.createPlant({ id: 1, name: 'x' }, { ...base, getToken: () => 't' }),
  ),
});
out.push({
  name: 'non-enumerable own token',
  create: await outcome(() =>
    api.createPlant(
      { id: 1, name: 'x' },
      Object.defineProperty({ baseUrl: base.baseUrl }, 'token', { value: TOKEN }),
    ),
  ),
});
out.push({
  name: 'inherited token',
  create: await outcome(() =>
    api.createPlant(
      { id: 1, name: 'x' },
      Object.setPrototypeOf(
        { baseUrl: base.baseUrl },
        Object.assign(Object.create(null), { token: TOKEN }),
      ),
    ),
  ),
});
out.push({
  name: 'token getter throws + unknown',
  create: await outcome(() =>
    api.createPlant(
      { id: 1, name: 'x' },
      Object.defineProperty({ baseUrl: base.baseUrl, zz: 1 }, 'token', {
        get() {
          throw new Error('tok');
        },
        enumerable: true,
      }),
    ),
  ),
});
out.push({
  name: 'hooks',
  create: await outcome(() =>
    api.createPlant(
      { id: 7n, name: 'x', tag: 't' },
      {
        ...base,
        idempotencyKey: true,
        headers: { 'X-B': 'b', 'x-c': ' c ' },
        beforeAttempt: (a) => a.headers.set('x-d', 'd'),
        afterAttempt: (o) => {
          seen.push({ after: Object.keys(o) });
        },
      },
    ),
  ),
});
out.push({
  name: 'key given',
  call: await outcome(() =>
    new api.PlantStoreClient(base).createPlant({ id: 1, name: 'x' }, { idempotencyKey: 'abc-1' }),
  ),
});
out.push({
  name: 'key bad',
  call: await outcome(() =>
    new api.PlantStoreClient(base).createPlant({ id: 1, name: 'x' }, { idempotencyKey: 'a"b' }),
  ),
});
out.push({
  name: 'retry null',
  call: await outcome(() =>
    new api.PlantStoreClient({ ...base, retry: { attempts: 3 } }).createPlant(
      { id: 1, name: 'x' },
      { retry: null },
    ),
  ),
});
out.push({
  name: 'header token',
  create: await outcome(() =>
    api.createPlant(
      { id: 1, name: 'x' },
      { ...base, headers: { [`X-${TOKEN}`]: TOKEN, 'bad name': TOKEN } },
    ),
  ),
});
out.push({
  name: 'baseUrl with token',
  create: await outcome(() =>
    api.createPlant({ id: 1, name: 'x' }, { ...base, baseUrl: `http://h/${TOKEN}`, timeoutMs: 0 }),
  ),
});
out.push({
  name: 'getToken ok',
  create: await outcome(() =>
    api.createPlant(
      { id: 1, name: 'x' },
      { baseUrl: base.baseUrl, getToken: async ({ refresh }) => `tok${refresh}` },
    ),
  ),
});
out.push({
  name: 'validate bigint',
  validate: await outcome(() => api.validateNewPlant({ id: 5n, name: 'x', tag: undefined })),
});
out.push({
  name: 'validate number',
  validate: await outcome(() => api.validateNewPlant({ id: 5, name: 'x', tag: 'y' })),
});
// Polluted Object.prototype.
Object.prototype.tag = 'polluted';
Object.prototype.fetch = () => {
  throw new Error('polluted fetch');
};
Object.prototype.headers = { 'x-polluted': '1' };
Object.prototype.getToken = () => 'p';
out.push({
  name: 'polluted create',
  create: await outcome(() => api.createPlant({ id: 1, name: 'x' }, { ...base })),
});
out.push({
  name: 'polluted validate',
  validate: await outcome(() => api.validateNewPlant({ id: 1, name: 'x' })),
});
out.push({
  name: 'polluted call options',
  call: await outcome(() => new api.PlantStoreClient(base).createPlant({ id: 1, name: 'x' }, {})),
});
for (const k of ['tag', 'fetch', 'headers', 'getToken']) delete Object.prototype[k];
process.stdout.write(JSON.stringify(out, null, 1));
