// The hostile inputs of issue 5, as a table. Each entry is
//   { name, family, kind: 'plant' | 'options', plant, options?, callOptions?, construct?, expect }
// where `expect` is one of
//   { kind: 'validation', issues: [[path, code], …] }   exactly these issues, in this order
//   { kind: 'config' | 'network' | 'timeout' | …, includes? }
//   { ok: true, stored?: { id, name, tag? } }           a boundary value that is valid: sent and stored
// and, unless it says `requests`, a failing entry must send nothing (the server's count unchanged).
// The harness runs a valid call after each one: the module must keep working.

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);
const MiB = 1 << 20;

class Seedling {
  constructor() {
    this.id = 1;
    this.name = 'class instance';
  }
}

/**
 * Values of every JavaScript type, each with the issue code it earns as `id`, `name` and `tag`
 * (`null`: valid there). A function makes each value fresh, so no entry sees another's leftovers.
 */
const VALUES = [
  // label, make, id, name, tag
  ['undefined', () => undefined, 'required', 'required', null],
  ['null', () => null, 'invalid_type', 'invalid_type', 'invalid_type'],
  ['true', () => true, 'invalid_type', 'invalid_type', 'invalid_type'],
  ['false', () => false, 'invalid_type', 'invalid_type', 'invalid_type'],
  ['the number 1', () => 1, null, 'invalid_type', 'invalid_type'],
  ['-0', () => -0, null, 'invalid_type', 'invalid_type'],
  ['1.5', () => 1.5, 'not_integer', 'invalid_type', 'invalid_type'],
  ['NaN', () => NaN, 'not_integer', 'invalid_type', 'invalid_type'],
  ['Infinity', () => Infinity, 'not_integer', 'invalid_type', 'invalid_type'],
  ['-Infinity', () => -Infinity, 'not_integer', 'invalid_type', 'invalid_type'],
  ['1e21', () => 1e21, 'unsafe_integer', 'invalid_type', 'invalid_type'],
  ['2^53', () => 2 ** 53, 'unsafe_integer', 'invalid_type', 'invalid_type'],
  ['-(2^53)', () => -(2 ** 53), 'unsafe_integer', 'invalid_type', 'invalid_type'],
  ['Number.MAX_VALUE', () => Number.MAX_VALUE, 'unsafe_integer', 'invalid_type', 'invalid_type'],
  ['5e-324', () => 5e-324, 'not_integer', 'invalid_type', 'invalid_type'],
  ['the string "1"', () => '1', 'invalid_type', null, null],
  ['the empty string', () => '', 'invalid_type', null, null],
  ['a lone high surrogate', () => '\uD800', 'invalid_type', 'malformed_string', 'malformed_string'],
  [
    'a lone low surrogate inside text',
    () => 'a\uDC00b',
    'invalid_type',
    'malformed_string',
    'malformed_string',
  ],
  [
    'a reversed surrogate pair',
    () => '\uDC00\uD800',
    'invalid_type',
    'malformed_string',
    'malformed_string',
  ],
  ['the BigInt 1n', () => 1n, null, 'invalid_type', 'invalid_type'],
  ['the BigInt 2^63', () => 2n ** 63n, 'out_of_range', 'invalid_type', 'invalid_type'],
  ['the BigInt -(2^63)-1', () => I64_MIN - 1n, 'out_of_range', 'invalid_type', 'invalid_type'],
  ['the BigInt 2^64', () => 2n ** 64n, 'out_of_range', 'invalid_type', 'invalid_type'],
  ['a symbol', () => Symbol('s'), 'invalid_type', 'invalid_type', 'invalid_type'],
  [
    'a function',
    () =>
      function named() {
        return 1;
      },
    'invalid_type',
    'invalid_type',
    'invalid_type',
  ],
  ['an arrow function', () => () => 'x', 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a class', () => Seedling, 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a plain object', () => ({}), 'invalid_type', 'invalid_type', 'invalid_type'],
  ['an array', () => [1], 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a Date', () => new Date(0), 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a Map', () => new Map([['id', 1]]), 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a RegExp', () => /x/, 'invalid_type', 'invalid_type', 'invalid_type'],
  ['an Error', () => new Error('e'), 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a Promise', () => Promise.resolve(1), 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a Uint8Array', () => new Uint8Array([1]), 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a boxed String', () => new String('x'), 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a boxed Number', () => new Number(1), 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a boxed BigInt', () => Object(1n), 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a class instance', () => new Seedling(), 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a Proxy of an object', () => new Proxy({}, {}), 'invalid_type', 'invalid_type', 'invalid_type'],
  [
    'an object with valueOf and toString',
    () => ({ valueOf: () => 1, toString: () => 'x' }),
    'invalid_type',
    'invalid_type',
    'invalid_type',
  ],
  [
    'an object whose Symbol.toPrimitive throws',
    () => ({
      [Symbol.toPrimitive]() {
        throw new Error('coerced!');
      },
    }),
    'invalid_type',
    'invalid_type',
    'invalid_type',
  ],
  ['the global object', () => globalThis, 'invalid_type', 'invalid_type', 'invalid_type'],
  ['a revoked Proxy', () => revoked({}), 'invalid_type', 'invalid_type', 'invalid_type'],
  [
    'a revoked Proxy of an array',
    () => revoked([]),
    'invalid_type',
    'invalid_type',
    'invalid_type',
  ],
];

function revoked(target) {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

/** Property definitions rather than values: getters. */
const GETTERS = [
  [
    'a getter that throws an Error',
    (token) => ({
      get() {
        throw new Error(`boom ${token}`);
      },
    }),
    'unreadable',
  ],
  [
    'a getter that throws a string',
    (token) => ({
      get() {
        throw `thrown ${token}`;
      },
    }),
    'unreadable',
  ],
  [
    'a getter that throws undefined',
    () => ({
      get() {
        throw undefined;
      },
    }),
    'unreadable',
  ],
  [
    'a getter that overflows the stack',
    () => ({
      get() {
        const f = () => f();
        return f();
      },
    }),
    'unreadable',
  ],
];

/** Values that are not plain objects at all, as the whole NewPlant. */
const ROOTS = [
  ['undefined', () => undefined],
  ['null', () => null],
  ['true', () => true],
  ['a number', () => 7],
  ['NaN', () => NaN],
  ['a string', () => '{"id":1,"name":"x"}'],
  ['a BigInt', () => 1n],
  ['a symbol', () => Symbol('p')],
  ['a function', () => function plant() {}],
  [
    'a function with id and name',
    () =>
      Object.defineProperty(
        Object.assign(() => {}, { id: 1 }),
        'name',
        { value: 'x', enumerable: true },
      ),
  ],
  ['an array', () => [1, 'x']],
  ['an array with id and name', () => Object.assign([], { id: 1, name: 'x' })],
  ['a Date', () => new Date()],
  [
    'a Map',
    () =>
      new Map([
        ['id', 1],
        ['name', 'x'],
      ]),
  ],
  ['a Set', () => new Set()],
  ['a RegExp', () => /plant/],
  ['an Error', () => Object.assign(new Error('x'), { id: 1, name: 'x' })],
  ['a Promise', () => Promise.resolve({ id: 1, name: 'x' })],
  ['a class instance', () => new Seedling()],
  ['a boxed String', () => new String('x')],
  ['a Uint8Array', () => new Uint8Array(4)],
  ['an ArrayBuffer', () => new ArrayBuffer(8)],
  ['an object inheriting from a plain object', () => Object.create({ id: 1, name: 'x' })],
  ['an object with __proto__ set to an array', () => ({ __proto__: [], id: 1, name: 'x' })],
  ['a Proxy of an array', () => new Proxy([], {})],
  [
    'a Proxy whose getPrototypeOf throws',
    () =>
      new Proxy(
        { id: 1, name: 'x' },
        {
          getPrototypeOf() {
            throw new Error('no proto');
          },
        },
      ),
  ],
  [
    'a Proxy whose getPrototypeOf lies (Date)',
    () => new Proxy({ id: 1, name: 'x' }, { getPrototypeOf: () => Date.prototype }),
  ],
  ['a revoked Proxy', () => revoked({ id: 1, name: 'x' })],
  ['a revoked Proxy of an array', () => revoked([])],
  ['a Proxy of a function', () => new Proxy(function f() {}, {})],
  ['an HTML element', () => document.createElement('div')],
];

export function buildCorpus({ token, fresh }) {
  const entries = [];
  const valid = () => ({ id: fresh(), name: 'Fern' });
  const plant = (family, name, value, expect) =>
    entries.push({ family, name, kind: 'plant', plant: value, expect });
  const issues = (...list) => ({ kind: 'validation', issues: list });

  // ---- generated: every wrong type in every field ----
  for (const [label, make, ...codes] of VALUES) {
    ['id', 'name', 'tag'].forEach((field, i) => {
      const code = codes[i];
      if (code === null) return;
      const value = { id: 1, name: 'Fern', [field]: make() };
      plant('wrong type × field', `${field}: ${label}`, value, issues([field, code]));
    });
  }
  for (const [label, make, code] of GETTERS) {
    for (const field of ['id', 'name', 'tag']) {
      const value = { id: 1, name: 'Fern' };
      Object.defineProperty(value, field, { ...make(token), enumerable: true, configurable: true });
      plant('throwing getter × field', `${field}: ${label}`, value, issues([field, code]));
    }
  }
  for (const [label, make] of ROOTS) {
    plant('not a plain object', `the NewPlant is ${label}`, make(), issues(['', 'invalid_type']));
  }
  // `arguments` has Object.prototype as its prototype: it is read as a plain object with keys 0, 1.
  plant(
    'not a plain object',
    'the NewPlant is an arguments object',
    (function () {
      // biome-ignore lint/complexity/noArguments: the case is an arguments object
      return arguments;
    })(1, 'x'),
    issues(
      ['id', 'required'],
      ['name', 'required'],
      ['0', 'unknown_field'],
      ['1', 'unknown_field'],
    ),
  );

  // ---- numbers at the edges (valid ones are sent and stored exactly) ----
  const edge = (name, id, expect) => plant('id edges', name, { id, name: `edge ${name}` }, expect);
  const stored = (id, name) => ({ ok: true, stored: { id: String(id), name: `edge ${name}` } });
  edge('-0 is 0', -0, stored(0, '-0 is 0'));
  edge('2^53-1', MAX_SAFE, stored(MAX_SAFE, '2^53-1'));
  edge('-(2^53-1)', -MAX_SAFE, stored(-MAX_SAFE, '-(2^53-1)'));
  edge(
    '2^53+2 (exactly representable, still unsafe)',
    2 ** 53 + 2,
    issues(['id', 'unsafe_integer']),
  );
  edge('0.1+0.2', 0.1 + 0.2, issues(['id', 'not_integer']));
  edge('Number.EPSILON', Number.EPSILON, issues(['id', 'not_integer']));
  edge('1 + 2^-52', 1 + 2 ** -52, issues(['id', 'not_integer']));
  edge('the BigInt 2^63-1', I64_MAX, stored(I64_MAX, 'the BigInt 2^63-1'));
  edge('the BigInt -(2^63)', I64_MIN, stored(I64_MIN, 'the BigInt -(2^63)'));
  edge('the BigInt 2^53+1', 2n ** 53n + 1n, stored(2n ** 53n + 1n, 'the BigInt 2^53+1'));
  edge('the BigInt 2^63 (one past)', 2n ** 63n, issues(['id', 'out_of_range']));
  edge('the BigInt -(2^63)-1 (one past)', I64_MIN - 1n, issues(['id', 'out_of_range']));
  edge('the BigInt 10^30', 10n ** 30n, issues(['id', 'out_of_range']));
  edge('the string "9007199254740993"', '9007199254740993', issues(['id', 'invalid_type']));
  edge('the string "0x10"', '0x10', issues(['id', 'invalid_type']));

  // ---- strings ----
  const text = (name, value, expect) => plant('strings', name, value, expect);
  const big = 'n'.repeat(MiB);
  let id = fresh();
  const almost = 'n'.repeat(MiB - 64);
  text(
    'a name of 1 MiB - 64 is sent whole and comes back',
    { id, name: almost },
    { ok: true, stored: { id: String(id), name: almost } },
  );
  // The server's echo of these is over 1 MiB; a 200 is read further when the call's own body is
  // long, so a stored plant is never refused for its size.
  id = fresh();
  text(
    'a 1 MiB name: stored, and its echo over 1 MiB read back',
    { id, name: big },
    { ok: true, stored: { id: String(id), name: big } },
  );
  id = fresh();
  const escaped = '\u0001'.repeat(MiB / 4);
  text(
    'a name of 256 Ki control characters, each echoed as \\u0001',
    { id, name: escaped, tag: escaped },
    { ok: true, stored: { id: String(id), name: escaped, tag: escaped } },
  );
  text(
    'a 1 MiB name ending in a lone surrogate',
    { id: 1, name: `${big}\uD800` },
    issues(['name', 'malformed_string']),
  );
  text(
    'a 1 MiB tag with a lone surrogate in the middle',
    { id: 1, name: 'x', tag: `${'a'.repeat(MiB / 2)}\uDFFF${'b'.repeat(MiB / 2)}` },
    issues(['tag', 'malformed_string']),
  );
  text(
    'lone surrogates in name and tag',
    { id: 1, name: 'x\uD83D', tag: '\uDE00y' },
    issues(['name', 'malformed_string'], ['tag', 'malformed_string']),
  );
  for (const [label, s] of [
    ['control characters', '\0\b\t\n\r\x1b\x7f'],
    ['JSON syntax', '"}],{"id":2,"name":"x'],
    ['a backslash escape', '\\u0000\\"'],
    ['line separators', '\u2028\u2029'],
    ['an astral emoji pair', '🌿🪴'],
    ['a BOM and a non-character', '\uFEFF\uFFFF'],
    ['HTML', '</script><script>alert(1)</script>'],
    ['the empty string', ''],
  ]) {
    id = fresh();
    text(
      `name and tag with ${label} arrive unchanged`,
      { id, name: s, tag: s },
      { ok: true, stored: { id: String(id), name: s, tag: s } },
    );
  }

  // ---- objects: frozen, sealed, null prototype, odd keys, Proxies ----
  const obj = (name, value, expect) => plant('objects', name, value, expect);
  id = fresh();
  obj('a frozen NewPlant is fine', Object.freeze({ id, name: 'frozen' }), {
    ok: true,
    stored: { id: String(id), name: 'frozen' },
  });
  obj(
    'a frozen NewPlant with a bad id',
    Object.freeze({ id: 1.5, name: 'frozen' }),
    issues(['id', 'not_integer']),
  );
  id = fresh();
  obj('a sealed NewPlant is fine', Object.seal({ id, name: 'sealed', tag: 't' }), {
    ok: true,
    stored: { id: String(id), name: 'sealed', tag: 't' },
  });
  id = fresh();
  obj(
    'a null-prototype NewPlant is fine',
    Object.assign(Object.create(null), { id, name: 'no proto' }),
    { ok: true, stored: { id: String(id), name: 'no proto' } },
  );
  obj(
    'a null-prototype NewPlant with a stray key',
    Object.assign(Object.create(null), { id: 1, name: 'x', extra: 1 }),
    issues(['extra', 'unknown_field']),
  );
  obj(
    'an own "__proto__" key (from JSON.parse)',
    JSON.parse('{"id":1,"name":"x","__proto__":{"tag":"evil"}}'),
    issues(['__proto__', 'unknown_field']),
  );
  obj(
    'an own "constructor" key',
    { id: 1, name: 'x', constructor: Object },
    issues(['constructor', 'unknown_field']),
  );
  obj(
    'an own "prototype" and "toString" key',
    { id: 1, name: 'x', prototype: 1, toString: () => 'x' },
    issues(['prototype', 'unknown_field'], ['toString', 'unknown_field']),
  );
  obj(
    'typos of every field',
    { ID: 1, nmae: 'x', tags: 'y' },
    issues(
      ['id', 'required'],
      ['name', 'required'],
      ['ID', 'unknown_field'],
      ['nmae', 'unknown_field'],
      ['tags', 'unknown_field'],
    ),
  );
  obj(
    'a 10,000-character unknown key',
    { id: 1, name: 'x', ['k'.repeat(10_000)]: 1 },
    issues([`${'k'.repeat(60)}…`, 'unknown_field']),
  );
  // Refused; the issue's path shows the lone surrogate as U+FFFD (keys are read as Rust strings).
  obj(
    'an unknown key with a lone surrogate',
    { id: 1, name: 'x', '\uD800key': 1 },
    issues(['\uFFFDkey', 'unknown_field']),
  );
  id = fresh();
  obj(
    'symbol keys are not fields',
    { id, name: 'x', [Symbol('tag')]: 5 },
    { ok: true, stored: { id: String(id), name: 'x' } },
  );
  obj(
    '1,000 unknown keys',
    Object.fromEntries([
      ['id', 1],
      ['name', 'x'],
      ...Array.from({ length: 1000 }, (_, i) => [`k${i}`, i]),
    ]),
    issues(...Array.from({ length: 1000 }, (_, i) => [`k${i}`, 'unknown_field'])),
  );
  obj(
    'everything wrong at once',
    { id: '1', name: null, tag: 5, tags: 'x' },
    issues(
      ['id', 'invalid_type'],
      ['name', 'invalid_type'],
      ['tag', 'invalid_type'],
      ['tags', 'unknown_field'],
    ),
  );
  id = fresh();
  obj(
    'a non-enumerable own id is still the id',
    Object.defineProperty({ name: 'x' }, 'id', { value: id, enumerable: false }),
    { ok: true, stored: { id: String(id), name: 'x' } },
  );
  id = fresh();
  obj(
    'an inherited id, name and tag (prototype with a null prototype) are not read',
    Object.setPrototypeOf(
      {},
      Object.assign(Object.create(null), { id, name: 'inherited', tag: 5 }),
    ),
    issues(['id', 'required'], ['name', 'required']),
  );
  id = fresh();
  obj(
    'an inherited tag is not sent',
    Object.setPrototypeOf(
      { id, name: 'x' },
      Object.assign(Object.create(null), { tag: 'inherited' }),
    ),
    { ok: true, stored: { id: String(id), name: 'x' } },
  );
  const reads = { count: 0 };
  id = fresh();
  obj(
    'a getter read once: the value checked is the value sent',
    {
      id,
      get name() {
        reads.count++;
        return reads.count === 1 ? 'first read' : 42;
      },
    },
    { ok: true, stored: { id: String(id), name: 'first read' } },
  );
  entries.at(-1).noRevalidate = true;
  const proxy = (name, handler, expect, target = { id: 1, name: 'x', tag: 't' }) =>
    obj(name, new Proxy(target, handler), expect);
  id = fresh();
  proxy(
    'a transparent Proxy of a plain NewPlant is fine',
    {},
    { ok: true, stored: { id: String(id), name: 'proxied' } },
    { id, name: 'proxied' },
  );
  proxy(
    'a Proxy whose get trap throws',
    {
      get() {
        throw new Error(`trap ${token}`);
      },
    },
    issues(['id', 'unreadable'], ['name', 'unreadable'], ['tag', 'unreadable']),
  );
  proxy(
    'a Proxy whose ownKeys trap throws',
    {
      ownKeys() {
        throw new Error('keys');
      },
    },
    issues(['', 'unreadable']),
  );
  proxy(
    'a Proxy whose getOwnPropertyDescriptor trap throws',
    {
      getOwnPropertyDescriptor() {
        throw new Error('descriptor');
      },
    },
    issues(['', 'unreadable']),
  );
  proxy(
    'a Proxy inventing an enumerable key',
    {
      ownKeys: () => ['id', 'name', 'evil'],
      getOwnPropertyDescriptor: (t, k) =>
        k === 'evil'
          ? { value: 1, enumerable: true, configurable: true }
          : Reflect.getOwnPropertyDescriptor(t, k),
    },
    issues(['evil', 'unknown_field']),
    { id: 1, name: 'x' },
  );
  proxy(
    'a Proxy whose get trap answers wrong types',
    { get: (_t, k) => (k === 'id' ? '1' : k === 'name' ? Symbol('n') : null) },
    issues(['id', 'invalid_type'], ['name', 'invalid_type'], ['tag', 'invalid_type']),
  );
  proxy(
    'a Proxy whose get trap answers a Proxy',
    { get: () => new Proxy({}, {}) },
    issues(['id', 'invalid_type'], ['name', 'invalid_type'], ['tag', 'invalid_type']),
  );

  // ---- options with the same kinds of trouble (nothing is sent) ----
  const opt = (name, options, expect = { kind: 'config' }) =>
    entries.push({ family: 'options', name, kind: 'options', plant: valid(), options, expect });
  const base = { baseUrl: location.origin, token };
  for (const [label, make] of ROOTS) opt(`the options are ${label}`, make());
  for (const [label, make] of VALUES) {
    const value = make();
    if (label !== 'undefined') opt(`baseUrl: ${label}`, { ...base, baseUrl: value });
    if (label !== 'undefined' && label !== 'the string "1"')
      opt(`token: ${label}`, { ...base, token: value });
    if (typeof value !== 'function' && value !== undefined)
      opt(`getToken: ${label}`, { baseUrl: base.baseUrl, getToken: value });
    if (typeof value !== 'function' && value !== undefined)
      opt(`fetch: ${label}`, { ...base, fetch: value });
    if (
      value !== undefined &&
      !(typeof value === 'number' && value >= 1 && value <= 2 ** 31 - 1 && Number.isInteger(value))
    ) {
      opt(`timeoutMs: ${label}`, { ...base, timeoutMs: value });
    }
    if (value !== undefined) opt(`signal: ${label}`, { ...base, signal: value });
    // An empty plain object is valid headers: no extra header.
    const emptyPlain = [
      'a plain object',
      'a Proxy of an object',
      'an object whose Symbol.toPrimitive throws',
    ].includes(label);
    if (value !== undefined && !emptyPlain) opt(`headers: ${label}`, { ...base, headers: value });
  }
  for (const [label, baseUrl] of [
    ['ftp scheme', 'ftp://127.0.0.1/'],
    ['user info with the token', `http://user:${token}@127.0.0.1/`],
    ['a query with the token', `http://127.0.0.1/?token=${token}`],
    ['a fragment', 'http://127.0.0.1/#x'],
    ['a backslash', 'http:\\\\127.0.0.1'],
    ['leading white space', ' http://127.0.0.1'],
    ['a CRLF', 'http://127.0.0.1/\r\nX-Evil: 1'],
    ['javascript:', 'javascript:alert(1)'],
    ['a relative path', '/api'],
    ['a 1 MiB URL with a query', `${`http://127.0.0.1/${'p'.repeat(MiB)}`.slice(0, MiB)}?`],
    ['no host', 'http:///plants'],
  ])
    opt(`baseUrl with ${label}`, { ...base, baseUrl });
  for (const [label, value] of [
    ['empty', ''],
    ['a space', `${token} x`],
    ['CRLF header injection', `${token}\r\nX-Evil: 1`],
    ['a lone surrogate', `${token}\uD800`],
    ['a 1 MiB token', `${token.repeat(Math.ceil(MiB / token.length))} `],
    ['an "=" inside', `${token}=x`],
    ['non-ASCII', `${token}é`],
  ])
    opt(`token with ${label}`, { ...base, token: value });
  opt('both token and getToken', { ...base, getToken: () => token });
  opt('neither token nor getToken', { baseUrl: base.baseUrl });
  opt('baseURL typo', { baseURL: base.baseUrl, token });
  opt('an unknown option', { ...base, retries: 3 });
  opt(
    'an own __proto__ option (from JSON.parse)',
    Object.assign(JSON.parse('{"__proto__":{"fetch":1}}'), base),
  );
  opt('an own constructor option', { ...base, constructor: Object });
  opt(
    'a getter that throws on baseUrl',
    Object.defineProperty({ token }, 'baseUrl', {
      get() {
        throw new Error(`no ${token}`);
      },
      enumerable: true,
    }),
  );
  opt(
    'a getter that throws on token',
    Object.defineProperty({ baseUrl: base.baseUrl }, 'token', {
      get() {
        throw new Error(`no ${token}`);
      },
      enumerable: true,
    }),
  );
  opt(
    'a Proxy whose get trap throws',
    new Proxy(
      { ...base },
      {
        get() {
          throw new Error(`trap ${token}`);
        },
      },
    ),
  );
  opt(
    'a Proxy whose ownKeys trap throws',
    new Proxy(
      { ...base },
      {
        ownKeys() {
          throw new Error('keys');
        },
      },
    ),
  );
  opt('getToken throws (with the token in its message)', {
    baseUrl: base.baseUrl,
    getToken() {
      throw new Error(`cannot refresh ${token}`);
    },
  });
  opt('getToken rejects', {
    baseUrl: base.baseUrl,
    getToken: () => Promise.reject(new Error(`expired ${token}`)),
  });
  opt('getToken answers a number', { baseUrl: base.baseUrl, getToken: () => 5 });
  opt('getToken answers a token with CRLF', {
    baseUrl: base.baseUrl,
    getToken: async () => `${token}\r\nX-Evil: 1`,
  });
  opt('getToken answers a lone surrogate', { baseUrl: base.baseUrl, getToken: () => '\uD800' });
  opt('headers: Authorization', { ...base, headers: { Authorization: 'Bearer other' } });
  opt('headers: content-type', { ...base, headers: { 'content-type': 'text/plain' } });
  opt('headers: a bad name', { ...base, headers: { 'bad name': 'x' } });
  opt('headers: a value with CRLF', { ...base, headers: { 'X-A': 'a\r\nX-Evil: 1' } });
  opt('headers: a number value', { ...base, headers: { 'X-A': 1 } });
  opt('headers: a lone surrogate value', { ...base, headers: { 'X-A': '\uD800' } });
  opt('headers: a getter that throws', {
    ...base,
    headers: Object.defineProperty({}, 'X-A', {
      get() {
        throw new Error('h');
      },
      enumerable: true,
    }),
  });
  opt('headers: a Headers object', { ...base, headers: new Headers({ 'X-A': 'a' }) });
  opt('headers: a Map', { ...base, headers: new Map([['X-A', 'a']]) });
  opt('a frozen, valid options object is fine', Object.freeze({ ...base }), { ok: true });
  opt('a null-prototype, valid options object is fine', Object.assign(Object.create(null), base), {
    ok: true,
  });
  opt(
    'fetch throws synchronously',
    {
      ...base,
      fetch() {
        throw new Error(`offline ${token}`);
      },
    },
    { kind: 'network' },
  );
  opt(
    'fetch resolves to a plain object',
    { ...base, fetch: async () => ({ status: 200, ok: true, json: async () => ({ name: 'x' }) }) },
    { kind: 'invalid_response' },
  );
  opt(
    'fetch never settles',
    { ...base, timeoutMs: 50, fetch: () => new Promise(() => {}) },
    { kind: 'timeout' },
  );
  opt(
    'getToken never settles',
    { baseUrl: base.baseUrl, timeoutMs: 50, getToken: () => new Promise(() => {}) },
    { kind: 'timeout' },
  );
  opt(
    'a signal that is already aborted',
    { ...base, signal: AbortSignal.abort() },
    { kind: 'aborted' },
  );
  for (const [label, make] of [
    ['a string', () => 'x'],
    ['a plain object', () => ({ aborted: true })],
    ['an AbortController', () => new AbortController()],
  ]) {
    entries.push({
      family: 'options',
      name: `call options: signal is ${label}`,
      kind: 'options',
      plant: valid(),
      callOptions: { signal: make() },
      expect: { kind: 'config' },
    });
  }
  entries.push({
    family: 'options',
    name: 'call options: an unknown key',
    kind: 'options',
    plant: valid(),
    callOptions: { timeoutMs: 5 },
    expect: { kind: 'config' },
  });
  entries.push({
    family: 'options',
    name: 'call options: a string',
    kind: 'options',
    plant: valid(),
    callOptions: 'x',
    expect: { kind: 'config' },
  });
  entries.push({
    family: 'options',
    name: 'new PlantStoreClient with a throwing getter',
    kind: 'options',
    plant: valid(),
    construct: true,
    options: Object.defineProperty({ token }, 'baseUrl', {
      get() {
        throw new Error('x');
      },
      enumerable: true,
    }),
    expect: { kind: 'config' },
  });
  return entries;
}
