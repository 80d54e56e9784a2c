// Issue 32: the messages a user meets, from the packed package in Node (the refusal to connect also
// in Deno and Bun), against servers on loopback. A network failure names the runtime's reason, and
// a connection never made says `maybeCreated: false`; a 404 names the URL and the baseUrl fix; a
// `Bearer ` token and a getToken's wrong result say what to do; redaction covers the server's text
// and never the client's own sentences; a 200 carrying fields the client does not read is a Plant;
// and an uncaught PlantStoreError prints a short, readable report in Node whose line of source and
// first frame are the caller's (issue 39). The outbox's option messages name the option, and in Node
// it warns of no Web Locks API.
//   PKG_TARBALL=artifacts/release/plant-store-client-0.1.0.tgz node --test tests/js/messages.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, ROOT, TOKEN } from './support/server.mjs';
import { tarball } from './support/tarball.mjs';
import { startPackagePage } from './support/static.mjs';
import { launchChromium, openPage } from './support/browser.mjs';

const PLANT = { id: 32, name: 'Fern' };

let dir;
let api;
let server; // the reference Plant Store
const servers = [];

/** Listens on loopback; resolves to its origin. */
async function listen(server, scheme = 'http') {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `${scheme}://127.0.0.1:${server.address().port}`;
}

/** A loopback port with nothing listening on it (a server opened, then closed). */
async function closedPort() {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** What the caller of createPlant sees: the Plant, or the error's fields. */
async function outcome(options, plant = PLANT) {
  try {
    return { plant: await api.createPlant(plant, { token: TOKEN, ...options }) };
  } catch (err) {
    const { kind, message, status, attempts, maybeCreated } = err;
    return { kind, message, status, attempts, maybeCreated };
  }
}

/** Runs `source` (an ES module) with `command`; resolves to its exit code, its stdout + stderr and its file. */
function runModule(command, args, source) {
  const file = join(dir, `run-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, source);
  return new Promise((resolve) => {
    execFile(command, [...args, file], { timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (err.code ?? err.signal) : 0, stdout, output: stdout + stderr, file }),
    );
  });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'messages-'));
  execFileSync('tar', ['-xzf', tarball(dir), '-C', dir]);
  api = await import(pathToFileURL(join(dir, 'package/node.mjs')).href);
  server = await startServer();
});

after(async () => {
  for (const s of servers) {
    s.closeAllConnections?.();
    s.close();
  }
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a refused connection names ECONNREFUSED and says maybeCreated: false (Node, Deno, Bun)', async () => {
  const port = await closedPort();
  const url = `http://127.0.0.1:${port}/plants`;
  const seen = await outcome({ baseUrl: `http://127.0.0.1:${port}` });
  assert.deepEqual(seen, {
    kind: 'network',
    status: undefined,
    attempts: 1,
    maybeCreated: false,
    message: `could not reach the Plant Store at ${url}: fetch failed (connect ECONNREFUSED 127.0.0.1:${port})`,
  });
  // Deno names it in its cause's message ("client error (Connect)"), Bun in a `code` of its own.
  const source = `import * as api from ${JSON.stringify(pathToFileURL(join(dir, 'package/node.mjs')).href)};
    try { await api.createPlant({ id: 1, name: 'x' }, { baseUrl: 'http://127.0.0.1:${port}', token: 't0ken' }); }
    catch (e) { console.log(JSON.stringify({ kind: e.kind, maybeCreated: e.maybeCreated, message: e.message })); }`;
  for (const [runtime, command, args] of [
    ['Deno', join(ROOT, 'node_modules/.bin/deno'), ['run', '-A']],
    ['Bun', join(ROOT, 'node_modules/.bin/bun'), []],
  ]) {
    const { stdout, output } = await runModule(command, args, source);
    const seen = JSON.parse(stdout.trim().split('\n').at(-1) || '{}');
    assert.equal(seen.kind, 'network', `${runtime}: ${output}`);
    assert.equal(seen.maybeCreated, false, `${runtime}: ${seen.message}`);
    assert.match(
      seen.message,
      /^could not reach the Plant Store at .*: .*(ECONNREFUSED|Connection refused)/,
      runtime,
    );
  }
});

test('a name that does not resolve names ENOTFOUND and says maybeCreated: false', async () => {
  const seen = await outcome({ baseUrl: 'http://plants.invalid' });
  assert.equal(seen.kind, 'network');
  assert.equal(seen.maybeCreated, false);
  assert.match(
    seen.message,
    /^could not reach the Plant Store at http:\/\/plants\.invalid\/plants: fetch failed \(getaddrinfo (ENOTFOUND|EAI_AGAIN) plants\.invalid\)$/,
  );
});

test('a certificate fetch refuses is named, and says maybeCreated: false', async () => {
  const pem = readFileSync(join(ROOT, 'tests/js/support/self-signed.pem'), 'utf8');
  const tls = createTlsServer({ key: pem, cert: pem }, (_req, res) => res.end('{"name":"Fern"}'));
  const origin = await listen(tls, 'https');
  const seen = await outcome({ baseUrl: origin });
  assert.deepEqual(
    { kind: seen.kind, maybeCreated: seen.maybeCreated },
    { kind: 'network', maybeCreated: false },
  );
  assert.equal(
    seen.message,
    `could not reach the Plant Store at ${origin}/plants: fetch failed (self-signed certificate)`,
  );
});

test('a connection lost after the request was sent still says maybeCreated: true', async () => {
  const reset = createServer((req) =>
    req.on('data', () => {}).on('end', () => req.socket.destroy()),
  );
  const seen = await outcome({ baseUrl: await listen(reset) });
  assert.deepEqual(
    { kind: seen.kind, maybeCreated: seen.maybeCreated },
    { kind: 'network', maybeCreated: true },
  );
  assert.match(seen.message, /: fetch failed \(other side closed\)$/);
});

test('a 404 names the URL it tried and says to check the baseUrl path', async () => {
  const seen = await outcome({ baseUrl: `${server.url}/api` });
  assert.equal(seen.kind, 'unexpected_status');
  assert.equal(
    seen.message,
    `the Plant Store answered 404 for POST ${server.url}/api/plants: an empty body; check options.baseUrl: ` +
      "/plants is appended to it, so it must hold the API's path prefix, for example https://plants.example/api/v1",
  );
});

test('a token passed with its Bearer prefix: pass the token without it', async () => {
  const seen = await outcome({ baseUrl: server.url, token: `Bearer ${TOKEN}` });
  assert.equal(seen.kind, 'config');
  assert.equal(
    seen.message,
    'options.token: token starts with `Bearer `: pass the token without the `Bearer ` prefix ' +
      '(the client adds it); its value is not shown',
  );
  assert.equal(seen.attempts, 0);
});

test("getToken's wrong result is named as its result", async () => {
  for (const [result, got] of [
    [undefined, 'undefined'],
    [null, 'null'],
    [42, 'number'],
    [{ token: 't' }, 'object'],
  ]) {
    const seen = await outcome({
      baseUrl: server.url,
      token: undefined,
      getToken: async () => result,
    });
    assert.equal(seen.kind, 'config');
    assert.equal(
      seen.message,
      `options.getToken returned ${got}; it must return the token, a string`,
    );
  }
});

test("a one-character token: the client's own sentences are whole; the server's text is redacted", async () => {
  const port = await closedPort();
  const refused = await outcome({ baseUrl: `http://127.0.0.1:${port}`, token: 'o' });
  assert.ok(
    refused.message.startsWith(
      `could not reach the Plant Store at http://127.0.0.1:${port}/plants: `,
    ),
    refused.message,
  );
  const echo = createServer((_req, res) => res.writeHead(500).end('token o refused'));
  const seen = await outcome({ baseUrl: await listen(echo), token: 'o' });
  assert.equal(
    seen.message,
    'the Plant Store answered 500: body "t[redacted]ken [redacted] refused"',
  );
});

test('a 200 with fields the client does not read is the Plant: 20 KB of metadata, a 10,000-digit number', async () => {
  const bodies = [
    JSON.stringify({
      name: 'Fern',
      links: Array.from({ length: 300 }, (_, i) => ({
        rel: `r${i}`,
        href: `https://plants.example/plants/${i}`,
      })),
      meta: 'm'.repeat(8000),
    }),
    `{"name":"Fern","audit":${'9'.repeat(10_000)}}`,
  ];
  assert.ok(bodies[0].length > 20_000);
  for (const body of bodies) {
    const padded = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(body),
    );
    assert.deepEqual(await outcome({ baseUrl: await listen(padded) }), { plant: { name: 'Fern' } });
  }
});

test('a freed PlantStoreClient rejects with a config error, and a second free() does nothing', async () => {
  const client = new api.PlantStoreClient({ baseUrl: server.url, token: TOKEN });
  client.free();
  client.free();
  const error = await client.createPlant(PLANT).catch((e) => e);
  assert.ok(api.PlantStoreError.is(error), String(error));
  assert.equal(error.kind, 'config');
  assert.match(error.message, /^client\.createPlant: this PlantStoreClient was freed/);
});

test("a header of the connection or the message's framing is refused: Node's fetch would fail the request", async () => {
  for (const name of ['Content-Length', 'expect', 'Transfer-Encoding', 'upgrade', 'Host']) {
    const seen = await outcome({ baseUrl: server.url, headers: { [name]: '5' } });
    assert.equal(seen.kind, 'config', name);
    assert.match(
      seen.message,
      new RegExp(`^options\\.headers cannot set ${name}: the runtime sets it`),
    );
    assert.equal(seen.attempts, 0);
  }
});

test('Response.error() from a fetch of yours is a network error, retried as one', async () => {
  let calls = 0;
  const fetch = async () => {
    calls++;
    return Response.error();
  };
  const options = {
    baseUrl: 'https://plants.example',
    fetch,
    retry: { attempts: 2, baseDelayMs: 1 },
  };
  const seen = await outcome(options);
  assert.equal(seen.kind, 'network');
  assert.equal(
    seen.message,
    'could not reach the Plant Store at https://plants.example/plants: fetch resolved to ' +
      'Response.error()',
  );
  assert.deepEqual([calls, seen.attempts, seen.maybeCreated], [2, 2, true]);
});

test('an async hook ends the call with a config error that says so', async () => {
  const fetch = async () => Response.json({ name: 'Fern' });
  for (const hook of ['beforeAttempt', 'afterAttempt']) {
    const options = { baseUrl: 'https://plants.example', fetch };
    const seen = await outcome({ ...options, [hook]: async () => {} });
    assert.equal(seen.kind, 'config', hook);
    assert.equal(
      seen.message,
      `options.${hook} returned a promise: hooks run synchronously, so make it a plain function; ` +
        'the call was stopped',
    );
  }
});

test("the call's Idempotency-Key is set after the before hook, and headers cannot set one", async () => {
  const sent = [];
  const fetch = async (_url, init) => {
    sent.push(init.headers.get('idempotency-key'));
    return Response.json({ name: 'Fern' });
  };
  const beforeAttempt = ({ headers }) => headers.set('Idempotency-Key', '"request-1"');
  const options = { baseUrl: 'https://plants.example', fetch, beforeAttempt };
  assert.ok((await outcome({ ...options, idempotencyKey: true })).plant);
  assert.match(sent[0], /^"[0-9a-f-]{36}"$/, "the call's key, not the hook's");
  assert.ok((await outcome(options)).plant);
  assert.equal(sent[1], '"request-1"', "a call without a key sends the hook's");
  const headers = { 'Idempotency-Key': 'order-1' };
  const refused = await outcome({ baseUrl: 'https://plants.example', fetch, headers });
  assert.equal(refused.message, 'options.headers cannot set Idempotency-Key: the client sets it');
  const framing = await outcome({
    ...options,
    beforeAttempt: ({ headers }) => headers.set('Content-Length', '5'),
  });
  assert.equal(
    framing.message,
    "options.beforeAttempt may not set Authorization or the connection's and framing's headers, " +
      'nor change Content-Type',
  );
  assert.equal(sent.length, 2, 'neither refused call sent anything');
});

test("a misspelt option, and a client's option given to a call: each message says where it goes", async () => {
  const { createPlant, PlantStoreClient } = await import(
    pathToFileURL(join(dir, 'package/node.mjs')).href
  );
  const base = { baseUrl: server.url, token: TOKEN };
  const plant = { id: 1, name: 'Fern' };
  const said = (call) =>
    call.then(
      () => 'sent',
      (e) => `${e.kind}: ${e.message}`,
    );
  const client = new PlantStoreClient(base);
  assert.deepEqual(
    [
      await said(createPlant(plant, { ...base, timeout: 5 })),
      await said(createPlant(plant, { ...base, retries: 3 })),
      await said(createPlant(plant, { ...base, tiemoutMs: 5 })),
      await said(client.createPlant(plant, { timeoutMs: 5 })),
      await said(createPlant(plant, { ...base, retry: { timeoutMs: 5 } })),
    ],
    [
      'config: unknown option "timeout" in options (did you mean "timeoutMs"?)',
      'config: unknown option "retries" in options (did you mean "retry"?)',
      'config: unknown option "tiemoutMs" in options (did you mean "timeoutMs"?)',
      'config: unknown option "timeoutMs" in call options (an option of new PlantStoreClient)',
      'config: unknown option "timeoutMs" in options.retry',
    ],
  );
});

test("the outbox's options: each message names its option, and a platform API of the wrong kind", async () => {
  const { PlantOutbox } = await import(pathToFileURL(join(dir, 'package/outbox/node.mjs')).href);
  const base = { baseUrl: server.url, token: TOKEN };
  for (const [options, option] of [
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'n', concurrency: 0 }, 'concurrency'],
    [{ name: 'n', concurrency: 65 }, 'concurrency'],
    [{ name: 'n', concurrency: 1.5 }, 'concurrency'],
    [{ name: 'n', retentionMs: -1 }, 'retentionMs'],
    [{ name: 'n', retentionMs: 2 ** 31 }, 'retentionMs'],
    [{ name: 'n', platform: { indexedDB: {} } }, 'platform.indexedDB'],
    [{ name: 'n', platform: { navigator: { locks: 5 } } }, 'platform.navigator.locks'],
    [
      { name: 'n', platform: { navigator: { locks: { request() {} } } } },
      'platform.navigator.locks',
    ],
    [{ name: 'n', platform: { navigator: { onLine: 'false' } } }, 'platform.navigator.onLine'],
    [{ name: 'n', platform: { document: { addEventListener() {} } } }, 'platform.document'],
    [{ name: 'n', platform: { addEventListener: 5 } }, 'platform.addEventListener'],
    [{ name: 'n', platform: { addEventListener() {} } }, 'platform.addEventListener'],
    [{ name: 'n', signal: new AbortController().signal }, 'signal'],
    [{ name: 'n', platform: { indexDB: new IDBFactory() } }, 'platform.indexDB'],
    [{ name: 'n', platform: { indexeddb: new IDBFactory() } }, 'platform.indexeddb'],
  ]) {
    const error = await PlantOutbox.open({ ...base, ...options }).catch((e) => e);
    assert.equal(error.kind, 'config', JSON.stringify(options));
    assert.ok(error.message.startsWith(`options.${option} `), error.message);
  }
  // A window's classes beside its APIs (happy-dom's) are no typo of them.
  const indexedDB = new IDBFactory();
  const platform = { indexedDB, Navigator: class {}, Document: class {}, IndexedDB: class {} };
  (await PlantOutbox.open({ ...base, name: 'n', platform })).close();
});

test('in Node (no document) the outbox says nothing of the Web Locks API it lacks', async (t) => {
  const { PlantOutbox } = await import(pathToFileURL(join(dir, 'package/outbox/node.mjs')).href);
  const warnings = [];
  t.mock.method(console, 'warn', (...args) => warnings.push(args.join(' ')));
  const platform = { indexedDB: new IDBFactory(), IDBKeyRange, navigator: { onLine: true } };
  const outbox = await PlantOutbox.open({ baseUrl: server.url, token: TOKEN, name: 'n', platform });
  await outbox.add({ id: 33, name: 'Fern' });
  await outbox.flush();
  assert.deepEqual(
    outbox.entries().map((e) => e.state),
    ['created'],
  );
  outbox.close();
  assert.deepEqual(warnings, []);
});

// Node prints an uncaught error's line of source, its stack, its fields and its cause chain. Ours is
// the caller's: the line that called createPlant under the caret, and as the one frame; no line of
// the package. A network error's cause is fetch's own TypeError and its cause, which Node prints
// with their stacks (about ten lines more).
for (const { what, baseUrl, first, most, client, outbox } of [
  {
    what: 'a 400',
    baseUrl: () => server.url,
    first: 'PlantStoreError: a plant with id 1 already exists',
    most: 18,
  },
  {
    what: 'a 404',
    baseUrl: () => `${server.url}/api`,
    first: 'PlantStoreError: the Plant Store answered 404 for POST',
    most: 18,
  },
  {
    what: 'a refused connection',
    baseUrl: async () => `http://127.0.0.1:${await closedPort()}`,
    first: 'PlantStoreError: could not reach the Plant Store',
    most: 28,
  },
  {
    what: "a client's refused connection",
    client: true,
    baseUrl: async () => `http://127.0.0.1:${await closedPort()}`,
    first: 'PlantStoreError: could not reach the Plant Store',
    most: 28,
  },
  {
    what: "the outbox's open without a platform",
    outbox: true,
    baseUrl: () => server.url,
    first: 'PlantStoreError: this runtime has no IndexedDB: pass options.platform',
    most: 18,
  },
  {
    what: "an outbox's call refused",
    outbox: (options) => `await (await open(${options})).remove('no-such-key');`,
    baseUrl: () => server.url,
    first: 'PlantStoreError: outbox.remove: not now, the outbox holds no entry of this key',
    most: 18,
  },
  {
    what: "an outbox's subscribe without a function",
    outbox: (options) => `(await open(${options})).subscribe('render');`,
    baseUrl: () => server.url,
    first: 'PlantStoreError: outbox.subscribe(listener): listener must be a function',
    most: 18,
  },
]) {
  test(`an uncaught PlantStoreError in Node (${what}): the caller's line under the caret and as its frame, no line of the package`, async () => {
    const options = `{ baseUrl: ${JSON.stringify(await baseUrl())}, token: ${JSON.stringify(TOKEN)} }`;
    const call =
      typeof outbox === 'function'
        ? outbox(options)
        : outbox
          ? `await api.PlantOutbox.open({ ...${options}, name: 'plants' });`
          : client
            ? `await new api.PlantStoreClient(${options}).createPlant({ id: 1, name: 'x' });`
            : `await api.createPlant({ id: 1, name: 'x' }, ${options});`;
    const entry = outbox ? 'package/outbox/node.mjs' : 'package/node.mjs';
    // The outbox's calls: on fake-indexeddb, opened on the caller's line.
    const fake = pathToFileURL(join(ROOT, 'node_modules/fake-indexeddb/build/esm/index.js')).href;
    const open = `const open = (o) => api.PlantOutbox.open({ ...o, name: 'n', platform: { indexedDB: new IDBFactory() } });`;
    const source = `import * as api from ${JSON.stringify(pathToFileURL(join(dir, entry)).href)}; import { IDBFactory } from '${fake}'; ${open}
${call}
`;
    if (what === 'a 400')
      await api
        .createPlant({ id: 1, name: 'x' }, { baseUrl: server.url, token: TOKEN })
        .catch(() => {});
    const { code, output, file } = await runModule(process.execPath, [], source);
    assert.equal(code, 1);
    const lines = output.trimEnd().split('\n');
    assert.ok(lines.length <= most, `${lines.length} lines:\n${output}`);
    assert.ok(
      lines.every((line) => line.length <= 300),
      `no long line:\n${output}`,
    );
    const caller = pathToFileURL(file).href;
    assert.deepEqual(
      lines.slice(0, 2),
      [`${caller}:2`, call],
      `the caller's line of source:\n${output}`,
    );
    assert.match(lines[2], /^ *\^$/, output);
    assert.ok(
      lines.some((line) => line.startsWith(first)),
      output,
    );
    const frames = lines.filter((line) => /^ {4}at /.test(line));
    assert.match(
      frames[0],
      new RegExp(
        `^    at (async )?${caller.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+( \\{)?$`,
      ),
      `the first frame is the caller's:\n${output}`,
    );
    assert.ok(!output.includes(entry), `no line of the package:\n${output}`);
    assert.ok(!output.includes('[PlantStoreError]') && !output.includes('wasm-function['), output);
  });
}

test('in Chromium offline (navigator.onLine false), a failed send says the browser is offline first, and no CORS guess', async () => {
  const page = await startPackagePage(
    dir,
    `
    import { createPlant, init } from '/package/index.js';
    await init();
    const options = { baseUrl: '${server.url}', token: '${TOKEN}' };
    window.send = () => createPlant({ id: 7, name: 'Fern' }, options).then(
      () => ({ kind: 'ok' }),
      (e) => ({ kind: e.kind, message: e.message, maybeCreated: e.maybeCreated }),
    );
    window.result = true;`,
  );
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage();
    await tab.goto(page.url, { timeout: 60_000 });
    await tab.waitForFunction(() => window.result, null, { timeout: 60_000 });
    await tab.context().setOffline(true);
    const seen = await tab.evaluate(() => window.send());
    assert.deepEqual(
      [seen.kind, seen.message],
      [
        'network',
        `could not reach the Plant Store at ${server.url}/plants: the browser is offline (navigator.onLine is false): Failed to fetch`,
      ],
    );
  } finally {
    await browser.close();
    page.stop();
  }
});

// In a browser the error is made again when the call fails, after an await, and the engine's async
// stack goes on with the line that awaited it: a call that succeeds pays for no stack.
test("in Chromium, a call's error carries the frame of the line that awaited it", async () => {
  const port = await closedPort();
  const page = await startPackagePage(
    dir,
    `
    import { createPlant, PlantStoreClient, PlantStoreError } from '/package/index.js';
    const options = { baseUrl: 'http://127.0.0.1:${port}', token: '${TOKEN}' };
    async function saveTheFern() { await createPlant({ id: 1, name: 'Fern' }, options); }
    async function saveWithClient() { await new PlantStoreClient(options).createPlant({ id: 2, name: 'Fern' }); }
    const seen = (e) => ({ kind: e.kind, message: e.message, instance: e instanceof PlantStoreError, stack: e.stack });
    window.result = [await saveTheFern().catch(seen), await saveWithClient().catch(seen)];`,
  );
  const browser = await launchChromium();
  try {
    const { result, pageErrors } = await openPage(browser, page.url);
    assert.deepEqual(pageErrors, []);
    for (const [error, caller] of [
      [result[0], 'saveTheFern'],
      [result[1], 'saveWithClient'],
    ]) {
      assert.equal(error.kind, 'network');
      assert.ok(error.instance);
      const lines = error.stack.split('\n');
      assert.equal(
        lines[0],
        `PlantStoreError: ${error.message}`,
        'the first line is the error, with its message',
      );
      assert.ok(
        lines.some((line) => line.includes(`at async ${caller} (${page.url}`)),
        `the caller's frame:\n${error.stack}`,
      );
    }
  } finally {
    await browser.close();
    page.stop();
  }
});
