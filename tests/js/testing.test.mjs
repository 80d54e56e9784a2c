// The packed package under the tools apps are tested with (docs/testing.md): $PKG_TARBALL (else
// `npm pack` of $PKG_DIR) installed into a scratch copy of an app (tests/testing/), whose own tests
// each tool runs: Vitest 4 in its node, jsdom and happy-dom environments with MSW 2 in Node, in its
// browser mode (Chromium) with MSW 2 as a service worker, and with undici's MockAgent; Jest 30 in
// jsdom with MSW 2; and MSW 3 on Node 22.12 (its floor), in Node, in jsdom and as a service worker.
// The app's queue (the outbox) runs in each, on fake-indexeddb but in the browser.
// Then the check those tools showed wanting, alone: a body whose chunks are bytes of another realm
// (as jsdom's) is read. The scratch apps live in target/testing/, made anew each run.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { PKG, ROOT } from './support/server.mjs';
import { tarball } from './support/tarball.mjs';

const WORK = join(ROOT, 'target/testing');
const MODULES = join(ROOT, 'node_modules');
const NODE_22 = join(MODULES, 'node-22.12/bin/node');
/** The app's tests with MSW in Node, which Vitest runs in each of its environments. */
const NODE_TESTS = ['test/plants.test.js', 'test/queue.test.js'];

/** Runs a command to its end (killed after `timeout` ms); rejects with its output when it fails. */
function run(command, args, { cwd, timeout = 180_000, env } = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd,
        timeout,
        env: { ...process.env, NO_COLOR: '1', CI: '1', CHROMIUM: '/usr/bin/chromium', ...env },
        maxBuffer: 16 << 20,
      },
      (err, stdout, stderr) => {
        if (err)
          reject(
            new Error(
              `${command} ${args.join(' ')} failed (${err.code ?? err.signal}):\n${stdout}\n${stderr}`,
            ),
          );
        else resolve(`${stdout}\n${stderr}`);
      },
    );
  });
}

/**
 * A scratch copy of the app at target/testing/<name>/ with the package (from `packageDir`, else
 * the tarball installed) and `msw` (the workspace's `msw` package, or `msw-3`), and MSW's worker
 * script in public/, as `npx msw init public` puts it. The test tools themselves are the
 * workspace's, found up the tree.
 */
async function app(name, { msw, packageDir }) {
  const dir = join(WORK, name);
  cpSync(join(ROOT, 'tests/testing'), dir, { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  mkdirSync(join(dir, 'public'));
  if (packageDir) symlinkSync(packageDir, join(dir, 'node_modules/plant-store-client'));
  else
    await run(
      'npm',
      ['install', '--offline', '--no-package-lock', '--no-audit', '--no-fund', tarball(WORK)],
      { cwd: dir },
    );
  symlinkSync(join(MODULES, msw), join(dir, 'node_modules/msw'));
  symlinkSync(join(MODULES, 'fake-indexeddb'), join(dir, 'node_modules/fake-indexeddb'));
  copyFileSync(
    join(MODULES, msw, 'lib/mockServiceWorker.js'),
    join(dir, 'public/mockServiceWorker.js'),
  );
  return dir;
}

/** The major version of `msw` that `dir`'s app gets. */
const mswMajor = (dir) =>
  JSON.parse(readFileSync(join(dir, 'node_modules/msw/package.json'), 'utf8')).version.split(
    '.',
  )[0];

describe("an app's own tests, run by each tool apps are tested with", { timeout: 900_000 }, () => {
  let msw2; // the app with MSW 2
  let msw3; // the same app with MSW 3

  before(async () => {
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    msw2 = await app('msw-2', { msw: 'msw' });
    msw3 = await app('msw-3', {
      msw: 'msw-3',
      packageDir: join(msw2, 'node_modules/plant-store-client'),
    });
    assert.equal(mswMajor(msw2), '2');
    assert.equal(mswMajor(msw3), '3');
  });

  /** Runs Vitest 4 in `cwd` with `node` and `args`; all its `count` tests pass. */
  async function vitest(cwd, args, count, node = process.execPath) {
    const output = await run(node, [join(MODULES, 'vitest/vitest.mjs'), 'run', ...args], { cwd });
    assert.match(output, new RegExp(`Tests\\s+${count} passed \\(${count}\\)`), output);
  }

  for (const environment of ['node', 'jsdom', 'happy-dom']) {
    it(`Vitest 4, its ${environment} environment, MSW 2 in Node: validateNewPlant, createPlant created and refused, the outbox on fake-indexeddb`, async () => {
      await vitest(msw2, [...NODE_TESTS, '--environment', environment], 6);
    });
  }

  it("Vitest 4's browser mode in Chromium, MSW 2 as a service worker, the outbox on the page's IndexedDB", async () => {
    await vitest(msw2, ['--config', 'vitest.browser.config.js'], 5);
  });

  it("Vitest 4, undici's MockAgent as Node's global dispatcher", async () => {
    await vitest(msw2, ['test/plants.undici.test.js'], 2);
  });

  it('Jest 30 in jsdom (jest-fixed-jsdom), its ES modules as they are, MSW 2 in Node, the outbox; Jest exits', async () => {
    const output = await run(
      process.execPath,
      ['--experimental-vm-modules', join(MODULES, 'jest/bin/jest.js'), '--ci'],
      { cwd: msw2 },
    );
    assert.match(output, /Tests:\s+5 passed, 5 total/, output);
  });

  for (const environment of ['node', 'jsdom', 'happy-dom']) {
    it(`MSW 3 on Node 22.12, Vitest 4's ${environment} environment`, async () => {
      await vitest(msw3, [...NODE_TESTS, '--environment', environment], 6, NODE_22);
    });
  }

  it("MSW 3 on Node 22.12, as a service worker in Vitest 4's browser mode", async () => {
    await vitest(msw3, ['--config', 'vitest.browser.config.js'], 5, NODE_22);
  });
});

it("docs/testing.md's code is the app's: each of its lines is in tests/testing/", () => {
  const app = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? app(join(dir, entry.name))
        : readFileSync(join(dir, entry.name), 'utf8').split('\n'),
    );
  const lines = new Set(app(join(ROOT, 'tests/testing')).map((line) => line.trim()));
  const doc = readFileSync(join(ROOT, 'docs/testing.md'), 'utf8');
  const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 5, 'the code blocks are found');
  for (const block of blocks) {
    const missing = block.split('\n').filter((line) => line.trim() && !lines.has(line.trim()));
    assert.deepEqual(missing, [], `docs/testing.md's block is not the app's:\n${block}`);
  }
});

describe('a body read through its stream, its chunks from any realm', () => {
  /** createPlant with a fetch whose 200 body yields `chunk`: what it resolves or rejects with. */
  async function callWith(chunk) {
    const { createPlant } = await import(pathToFileURL(join(PKG, 'node.mjs')).href);
    const fetch = async () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(chunk);
            controller.close();
          },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    return createPlant(
      { id: 1, name: 'Fern' },
      { baseUrl: 'https://plants.example', token: 'test-token', fetch },
    ).then(
      (plant) => ({ plant }),
      (err) => ({ kind: err.kind, cause: String(err.cause) }),
    );
  }

  it('a Uint8Array of another realm (node:vm, as jsdom gives) is bytes', async () => {
    const foreign = vm.runInNewContext('new Uint8Array(bytes)', {
      bytes: [...Buffer.from('{"name":"Fern"}')],
    });
    assert.notEqual(Object.getPrototypeOf(foreign), Uint8Array.prototype);
    assert.deepEqual(await callWith(foreign), { plant: { name: 'Fern' } });
  });

  it('a chunk that is not bytes (a string, a Uint16Array, a forged tag) is still refused', async () => {
    for (const chunk of [
      '{"name":"Fern"}',
      new Uint16Array(4),
      { [Symbol.toStringTag]: 'Uint8Array', length: 1 },
    ])
      assert.deepEqual(await callWith(chunk), {
        kind: 'network',
        cause: 'TypeError: the body stream yielded a chunk that is not bytes',
      });
  });
});
