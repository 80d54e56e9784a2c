// The packed package in every runtime it promises: $PKG_TARBALL (else `npm pack` of $PKG_DIR), installed
// into a scratch consumer (a copy of tests/runtimes/), then in each runtime one real createPlant
// against the reference server on loopback and one validation failure (tests/runtimes/check.mjs):
// Node (this machine's, 20.19.0, 22.12.0 and 24; import and require), Deno 2, workerd, a Vite production build in headless
// Chromium, and a Web Worker in Chromium. Also: package.json's fields. (The types: types.test.mjs.)
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { consumers } from './support/checked.mjs';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, dirname, relative, normalize } from 'node:path';
import { sendFile } from './support/static.mjs';
import { launchChromium, openPage } from './support/browser.mjs';
import { startServer, ROOT, TOKEN } from './support/server.mjs';
import { NODES } from './support/nodes.mjs';
import { tarball } from './support/tarball.mjs';

const BIN = join(ROOT, 'node_modules/.bin');

/** Runs a command to its end (killed after `timeout` ms); rejects with its output when it fails. */
function run(command, args, { cwd, timeout = 60_000, env } = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, timeout, env: { ...process.env, ...env }, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        if (err)
          reject(
            new Error(
              `${command} ${args.join(' ')} failed (${err.code ?? err.signal}):\n${stdout}\n${stderr}`,
            ),
          );
        else resolve({ stdout, stderr });
      },
    );
  });
}

/** The last line of a consumer's output: the JSON summary written by check.mjs. */
const summary = (stdout) => JSON.parse(stdout.trim().split('\n').at(-1));

describe('the packed package in each runtime', { timeout: 300_000 }, () => {
  let tmp; // holds the tarball and the consumer project
  let consumer;
  let server;
  const { nextId, assertChecked } = consumers(() => server, false);

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'plant-store-runtimes-'));
    // The tarball scripts/release-check packed and checked (publint, attw), or a fresh pack.
    const packed = tarball(tmp);
    consumer = join(tmp, 'consumer');
    cpSync(join(ROOT, 'tests/runtimes'), consumer, {
      recursive: true,
      filter: (src) => !/[/\\](node_modules|dist)$/.test(src),
    });
    // The tarball has no dependencies: nothing is fetched.
    await run(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', packed],
      { cwd: consumer, timeout: 120_000 },
    );
    server = await startServer();
  });

  after(async () => {
    await server?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  /** Runs a consumer script that prints check.mjs's summary; checks it and that exactly one request was sent. */
  async function runConsumer(command, args, where) {
    const id = nextId();
    const before = await server.stats();
    const { stdout } = await run(command, [...args, server.url, TOKEN, String(id), where], {
      cwd: consumer,
    });
    const after = await server.stats();
    assert.deepEqual(
      { requests: after.requests - before.requests, plants: after.plants - before.plants },
      { requests: 1, plants: 1 },
      'one request, for the valid plant; the invalid one was not sent',
    );
    await assertChecked(summary(stdout), { id, where });
  }

  it('package.json is complete, and every file it names is in the tarball', () => {
    const dir = join(consumer, 'node_modules/plant-store-client');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const field of [
      'name',
      'version',
      'description',
      'license',
      'keywords',
      'type',
      'exports',
      'engines',
      'files',
      'sideEffects',
    ]) {
      assert.ok(
        manifest[field] !== undefined && manifest[field] !== '',
        `package.json has ${field}`,
      );
    }
    assert.equal(manifest.type, 'module');
    const root = manifest.exports['.'];
    assert.equal(Object.keys(root)[0], 'types', 'types comes first');
    assert.deepEqual(Object.keys(root), ['types', 'workerd', 'edge-light', 'node', 'default']);
    const targets = (entry) =>
      typeof entry === 'string' ? [entry] : Object.values(entry).flatMap(targets);
    for (const target of targets(manifest.exports))
      assert.ok(existsSync(join(dir, target)), `${target} is packed`);
    assert.ok(existsSync(join(dir, 'README.md')), 'the README is packed');
    // Every module that loads the wasm on import is marked as having side effects.
    for (const entry of ['./index.js', './node.mjs', './workerd.js', './edge-light.js'])
      assert.ok(manifest.sideEffects.includes(entry), entry);
  });

  for (const { label, path, version } of NODES) {
    it(`${label}: import from an ES module`, async () => {
      const { stdout } = await run(path, ['--version']);
      assert.equal(stdout.trim(), `v${version}`);
      await runConsumer(path, ['node-esm.mjs'], 'node-esm');
    });
    it(`${label}: require from CommonJS`, async () => {
      await runConsumer(path, ['node-cjs.cjs'], 'node-cjs');
    });
  }

  it('Deno 2: import with --allow-net only', async () => {
    const { stdout } = await run(join(BIN, 'deno'), ['--version']);
    assert.match(stdout, /^deno 2\./);
    const port = new URL(server.url).host;
    await runConsumer(
      join(BIN, 'deno'),
      [
        'run',
        '--quiet',
        '--no-config',
        '--node-modules-dir=manual',
        `--allow-net=${port}`,
        'deno.mjs',
      ],
      'deno',
    );
  });

  it('workerd: a Worker whose fetch handler calls createPlant', async () => {
    // Like wrangler's bundler: the entry by the `workerd` condition, then every module it reaches.
    const pkgDir = join(consumer, 'node_modules/plant-store-client');
    const conditions = ['workerd', 'worker', 'browser', 'import', 'default'];
    let entry = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).exports['.'];
    while (typeof entry === 'object')
      entry = entry[Object.keys(entry).find((key) => conditions.includes(key))];
    assert.equal(entry, './workerd.js');
    const modules = [];
    const seen = new Set();
    const visit = (file, name) => {
      if (seen.has(file)) return;
      seen.add(file);
      const embed = relative(join(consumer, 'workerd'), join(pkgDir, file));
      if (file.endsWith('.wasm')) {
        modules.push(`    (name = "${name}", wasm = embed "${embed}"),`);
        return;
      }
      modules.push(`    (name = "${name}", esModule = embed "${embed}"),`);
      const text = readFileSync(join(pkgDir, file), 'utf8');
      for (const [, spec] of text.matchAll(/(?:from|import)\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = normalize(join(dirname(file), spec));
        visit(target, target);
      }
    };
    visit(normalize(entry), 'plant-store-client'); // the entry sits at the package root
    const config = readFileSync(join(consumer, 'workerd/config.capnp.in'), 'utf8')
      .replace('@MODULES@', modules.join('\n'))
      .replace('@BASE_URL@', server.url)
      .replace('@TOKEN@', TOKEN);
    writeFileSync(join(consumer, 'workerd/config.capnp'), config);

    const child = spawn(join(BIN, 'workerd'), ['serve', 'config.capnp', '--control-fd=3'], {
      cwd: join(consumer, 'workerd'),
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    try {
      const port = await new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`workerd did not listen within 20 s:\n${output}`)),
          20_000,
        );
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`workerd exited with ${code}:\n${output}`));
        });
        let control = '';
        child.stdio[3].on('data', (chunk) => {
          control += chunk;
          for (const line of control.split('\n')) {
            const message = line.trim() && JSON.parse(line);
            if (message?.event === 'listen' && message.socket === 'http') {
              clearTimeout(timer);
              resolve(message.port);
            }
          }
        });
      });
      const id = nextId();
      const before = await server.stats();
      const response = await fetch(`http://127.0.0.1:${port}/?id=${id}`, {
        signal: AbortSignal.timeout(60_000),
      });
      const result = await response.json();
      assert.equal(response.status, 200, JSON.stringify(result) + output);
      const after = await server.stats();
      assert.equal(after.requests - before.requests, 1, 'one request, for the valid plant');
      await assertChecked(result, { id, where: 'workerd' });
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    }
  });

  describe('headless Chromium, a Vite production build', () => {
    let browser;
    let web; // a static server for vite-app/dist
    let origin;

    before(async () => {
      const { build } = await import('vite');
      await build({ configFile: join(consumer, 'vite-app/vite.config.js'), mode: 'production' });
      const dist = join(consumer, 'vite-app/dist');
      web = createServer((req, res) => sendFile(res, dist, new URL(req.url, 'http://x').pathname));
      web.listen(0, '127.0.0.1');
      await once(web, 'listening');
      origin = `http://127.0.0.1:${web.address().port}`;
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      web?.closeAllConnections();
      web?.close();
    });

    /** Opens a page of the built app and returns its `window.result` (openPage's bounds). */
    async function open(page, id) {
      const query = new URLSearchParams({ base: server.url, token: TOKEN, id: String(id) });
      return (await openPage(browser, `${origin}/${page}?${query}`)).result;
    }

    it('the built app: the wasm is inside the script (no asset), and the page creates a plant', async () => {
      const assets = readdirSync(join(consumer, 'vite-app/dist/assets'));
      assert.deepEqual(
        assets.filter((name) => name.endsWith('.wasm')),
        [],
        `no .wasm among ${assets}`,
      );
      const id = nextId();
      await assertChecked(await open('index.html', id), { id, where: 'vite', window: true });
    });

    it("a Web Worker (no window), at Vite's default worker format: the default entry", async () => {
      const id = nextId();
      await assertChecked(await open('worker.html', id), { id, where: 'worker' });
    });
  });
});
