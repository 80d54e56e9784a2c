// The packed package in every bundler and framework users build with: $PKG_TARBALL (else `npm pack`
// of $PKG_DIR) installed into a scratch consumer (tests/bundlers/), then each tool builds a page
// whose script imports the package and makes one real createPlant against the reference server on
// loopback, and one validation failure (tests/runtimes/check.mjs), in one headless Chromium:
// webpack 5, Rspack, Parcel 2, Vite 5, 6, 7 and 8, esbuild, Rollup 4 (with its node-resolve
// plugin) and `bun build`, each at its defaults, with no step of its own: the wasm is inside the
// script, and none emits a .wasm or requests one; Next.js (a client component, and route handlers on
// the Node and edge runtimes, after `next build` and `next start`), the Bun runtime. On each Vite,
// the README's outbox example as written and the React recipe of docs/react.md (TSX, with TanStack
// Query and the outbox) at the default target; that recipe also compiled by `tsc --noEmit` under
// strict, and used in Chromium as a person would (artifacts/react.png). (Vite with a Web Worker:
// runtimes.test.mjs.) Then a module that cannot be compiled in Chromium (a CSP without
// 'wasm-unsafe-eval'): the import succeeds and every export fails with a `config` PlantStoreError
// that names the fix; and a classic script read as windows-1252 (the wasm inside is ASCII) works.
// The consumer lives in target/bundlers/, kept between runs as the build caches of Parcel and
// Next.js (.parcel-cache/, next/.next/cache/); its outputs are rebuilt every run.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { consumers } from './support/checked.mjs';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { sendFile } from './support/static.mjs';
import { startServer, ROOT, TOKEN } from './support/server.mjs';
import { tarball } from './support/tarball.mjs';
import { launchChromium, openPage } from './support/browser.mjs';

const BIN = join(ROOT, 'node_modules/.bin');
const WORK = join(ROOT, 'target/bundlers');
const OUT = join(WORK, 'out');

/** Runs a command to its end (killed after `timeout` ms); rejects with its output when it fails. */
function run(command, args, { cwd = WORK, timeout = 120_000, env, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      {
        cwd,
        timeout,
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env },
        maxBuffer: 16 << 20,
      },
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
    if (input !== undefined) child.stdin.end(input);
  });
}

/** A page that loads `script` as a module (for the tools that build a script, not a page). */
const page = (dir, script, type = 'module') =>
  writeFileSync(
    join(dir, 'index.html'),
    `<!doctype html><meta charset="utf-8"><script type="${type}" src="./${script}"></script>\n`,
  );

/**
 * Serves out/<dir>/ at /<dir>/. Two more mounts: /csp/ serves the failure page (out/failure/) with a
 * Content-Security-Policy that forbids compiling wasm; /charset/ the classic page (out/classic/,
 * without a charset) with a script whose Content-Type names none either: the browser reads it as
 * windows-1252.
 */
function staticServer() {
  const mounts = {
    csp: { dir: 'failure', page: { 'content-security-policy': "script-src 'self'" } },
    charset: { dir: 'classic', script: { 'content-type': 'text/javascript' } },
  };
  return createServer((req, res) => {
    const [, mount, ...rest] = new URL(req.url, 'http://x').pathname.split('/');
    const { dir = mount, page = {}, script = {} } = mounts[mount] ?? {};
    const path = rest.join('/');
    sendFile(res, join(OUT, dir), path, path.endsWith('.js') ? script : page);
  });
}

/** A free port on loopback, for a server that takes a port number (next start). */
async function freePort() {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address();
  probe.close();
  return port;
}

// A bound for the whole suite on a loaded machine: 600 s was broken beside two other builds (load 15).
describe('the packed package in each bundler and framework', { timeout: 900_000 }, () => {
  let server; // the reference server
  let web; // serves out/
  let origin;
  let browser;
  const { nextId, assertChecked } = consumers(() => server, true);

  before(async () => {
    // The fixtures over the previous run's consumer (its caches stay); its outputs are rebuilt.
    mkdirSync(WORK, { recursive: true });
    rmSync(OUT, { recursive: true, force: true });
    rmSync(join(WORK, 'next/app'), { recursive: true, force: true });
    mkdirSync(join(ROOT, 'artifacts'), { recursive: true });
    cpSync(join(ROOT, 'tests/bundlers'), WORK, { recursive: true });
    for (const dir of ['web', 'next', 'vite', '.'])
      copyFileSync(join(ROOT, 'tests/runtimes/check.mjs'), join(WORK, dir, 'check.mjs'));
    copyFileSync(join(ROOT, 'tests/runtimes/node-esm.mjs'), join(WORK, 'node-esm.mjs'));
    // The tarball has no dependencies: nothing is fetched. No lockfile, which Next.js would take for
    // a second workspace root.
    const packed = tarball(WORK);
    await run('npm', [
      'install',
      '--offline',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      packed,
    ]);
    [server, browser] = await Promise.all([startServer(), launchChromium()]);
    web = staticServer().listen(0, '127.0.0.1');
    await once(web, 'listening');
    origin = `http://127.0.0.1:${web.address().port}`;
  });

  after(async () => {
    await browser?.close();
    web?.closeAllConnections();
    web?.close();
    await server?.stop();
  });

  /** Opens /<dir>/index.html in Chromium: the page makes its call, with no page error. */
  async function assertPage(dir, where = dir) {
    const id = nextId();
    const query = new URLSearchParams({ base: server.url, token: TOKEN, id: String(id), where });
    const { result, pageErrors } = await openPage(browser, `${origin}/${dir}/index.html?${query}`);
    assert.deepEqual(pageErrors, []);
    // (The server's request count would include CORS preflights; the invalid plant's `validation`
    // kind shows it was refused before sending, where the server would have answered `rejected`.)
    await assertChecked(result, { id, where });
  }

  const emitted = (dir) => readdirSync(join(OUT, dir)).filter((name) => name.endsWith('.wasm'));

  it('webpack 5, no config: emits no .wasm; the page creates a plant', async () => {
    const dir = join(OUT, 'webpack');
    // What `webpack --mode production` does with no config (the CLI is a separate package).
    await run(process.execPath, [
      '--input-type=module',
      '-e',
      `
      import webpack from 'webpack';
      webpack({ mode: 'production', context: ${JSON.stringify(join(WORK, 'web'))}, entry: './index.js', output: { path: ${JSON.stringify(dir)} } },
        (err, stats) => { if (err || stats.hasErrors()) { console.error(err ?? stats.toString('errors-only')); process.exit(1); } });`,
    ]);
    assert.deepEqual(emitted('webpack'), []);
    page(dir, 'main.js', 'text/javascript');
    await assertPage('webpack');
  });

  it('Rspack, no config: emits no .wasm; the page creates a plant', async () => {
    const dir = join(OUT, 'rspack');
    // What `rspack build --mode production` does with no config (the CLI is a separate package).
    await run(process.execPath, [
      '--input-type=module',
      '-e',
      `
      import { rspack } from '@rspack/core';
      rspack({ mode: 'production', context: ${JSON.stringify(join(WORK, 'web'))}, entry: './index.js', output: { path: ${JSON.stringify(dir)} } },
        (err, stats) => { if (err || stats.hasErrors()) { console.error(err ?? stats.toString('errors-only')); process.exit(1); } });`,
    ]);
    assert.deepEqual(emitted('rspack'), []);
    page(dir, 'main.js', 'text/javascript');
    await assertPage('rspack');
  });

  it('Parcel 2, no config: emits no .wasm; the page creates a plant', async () => {
    await run(join(BIN, 'parcel'), [
      'build',
      'web/index.html',
      '--dist-dir',
      join(OUT, 'parcel'),
      '--cache-dir',
      '.parcel-cache',
      '--public-url',
      './',
      '--no-source-maps',
      '--log-level',
      'warn',
    ]);
    assert.deepEqual(emitted('parcel'), []);
    await assertPage('parcel');
  });

  // Each at its default build target: Vite 5 and 6 refuse a top-level await there, so the default
  // entry has none. `--base ./` only, to serve the page from /<version>/.
  for (const version of [5, 6, 7, 8]) {
    it(`Vite ${version}, default configuration: emits no .wasm, the page requests none and creates a plant`, async () => {
      const vite = join(
        ROOT,
        'node_modules',
        version === 8 ? 'vite' : `vite-${version}`,
        'bin/vite.js',
      );
      const dir = `vite-${version}`;
      await run(process.execPath, [
        vite,
        'build',
        'vite',
        '--base',
        './',
        '--outDir',
        join(OUT, dir),
        '--emptyOutDir',
        '--logLevel',
        'warn',
      ]);
      const assets = readdirSync(join(OUT, dir, 'assets'));
      assert.deepEqual(
        assets.filter((name) => name.endsWith('.wasm')),
        [],
      );
      const id = nextId();
      const query = new URLSearchParams({
        base: server.url,
        token: TOKEN,
        id: String(id),
        where: dir,
      });
      const { result, pageErrors } = await openPage(
        browser,
        `${origin}/${dir}/index.html?${query}`,
      );
      assert.deepEqual(pageErrors, []);
      const { loaded, ...checkedResult } = result;
      assert.deepEqual(loaded, [], 'no .wasm requested');
      await assertChecked(checkedResult, { id, where: dir });
    });
  }

  /** Builds `dir` (under WORK) with Vite `version` into out/<outDir>/, `args` added. */
  const viteBuild = (version, dir, outDir, args = []) =>
    run(process.execPath, [
      join(ROOT, 'node_modules', version === 8 ? 'vite' : `vite-${version}`, 'bin/vite.js'),
      'build',
      dir,
      '--base',
      './',
      '--outDir',
      join(OUT, outDir),
      '--emptyOutDir',
      '--logLevel',
      'warn',
      ...args,
    ]);

  /**
   * The React recipe of docs/react.md: each of its ```tsx blocks, as written, into the app of
   * tests/bundlers/react/ under the name its first line gives (`// PlantForm.tsx`). The app adds
   * the page, its tsconfig.json (strict, as Vite's React template) and options.ts, which the
   * recipe imports: the options from the page's query.
   */
  function writeRecipe() {
    const doc = readFileSync(join(ROOT, 'docs/react.md'), 'utf8');
    const files = [...doc.matchAll(/^```tsx\n\/\/ (\w+\.tsx)\n([\s\S]*?)^```$/gm)].map(
      ([, name, body]) => ({ name, code: `// ${name}\n${body}` }),
    );
    assert.deepEqual(
      files.map((file) => file.name),
      ['PlantForm.tsx', 'main.tsx'],
    );
    for (const { name, code } of files) writeFileSync(join(WORK, 'react', name), code);
    return files;
  }

  // The README's outbox example and the React recipe at each Vite's default build target (neither
  // has a top-level await, which Vite 5 and 6 refuse at theirs).
  for (const version of [5, 6, 7, 8]) {
    it(`Vite ${version}, default configuration: the README's outbox example, as written, sends its plant`, async () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const section = readme.slice(readme.indexOf('## Never lose a plant'));
      writeFileSync(
        join(WORK, 'readme-outbox/readme.ts'),
        section.match(/```ts\n([\s\S]*?)```/)[1],
      );
      const dir = `readme-outbox-${version}`;
      await viteBuild(version, 'readme-outbox', dir);
      const query = new URLSearchParams({ base: server.url, token: TOKEN });
      const { result, pageErrors } = await openPage(
        browser,
        `${origin}/${dir}/index.html?${query}`,
      );
      assert.deepEqual(pageErrors, []);
      // The example's plant is id 42: created by the first page, a duplicate id for the others.
      assert.equal(result.name, 'Fern');
      if (result.state === 'rejected') assert.equal(result.error.code, 3, result.error.message);
      else assert.equal(result.state, 'created');
      assert.deepEqual(await server.json('/__test/plants/42'), {
        id: '42',
        name: 'Fern',
        tag: null,
      });
    });

    it(`Vite ${version}, default configuration: the React recipe of docs/react.md (TSX) builds, and its form creates a plant`, async () => {
      writeRecipe();
      const dir = `react-${version}`;
      await viteBuild(version, 'react', dir);
      const tab = await browser.newPage();
      const pageErrors = [];
      tab.on('pageerror', (err) => pageErrors.push(String(err)));
      try {
        const query = new URLSearchParams({ base: server.url, token: TOKEN });
        await tab.goto(`${origin}/${dir}/index.html?${query}`);
        const id = nextId();
        await tab.getByPlaceholder('id').fill(String(id));
        await tab.getByPlaceholder('name').fill('Fern');
        await tab.getByRole('button', { name: 'Create' }).click();
        await tab.locator('output', { hasText: 'Created Fern' }).waitFor();
        assert.equal((await server.json(`/__test/plants/${id}`)).name, 'Fern');
        assert.deepEqual(pageErrors, []);
      } finally {
        await tab.close();
      }
    });
  }

  it("the React recipe of docs/react.md compiles under strict TypeScript (tsc --noEmit, Vite's React template's options), laid out as Biome lays it out", async () => {
    for (const { name, code } of writeRecipe()) {
      const { stdout } = await run(
        join(BIN, 'biome'),
        ['format', `--stdin-file-path=docs/${name}`],
        {
          cwd: ROOT,
          input: code,
        },
      );
      assert.equal(code, stdout, `${name} as Biome formats it`);
    }
    await run(join(BIN, 'tsc'), ['--noEmit', '-p', join(WORK, 'react')]);
  });

  // The recipe in a Vite 8 app (tests/bundlers/react/), used in Chromium as a person would.
  it("React with Vite: the recipe of docs/react.md validates as you type, creates a plant with useMutation, shows the outbox's entries live, their errors and actions, each failure on screen, offline, after an outage and through a reload", async () => {
    writeRecipe();
    await viteBuild(8, 'react', 'react');
    const packed = readFileSync(join(WORK, 'node_modules/plant-store-client/package.json'), 'utf8');
    assert.ok(!/react/i.test(packed), 'the package names no React');

    const tab = await browser.newPage({ viewport: { width: 900, height: 640 } });
    const pageErrors = [];
    tab.on('pageerror', (err) => pageErrors.push(String(err)));
    const entry = (text) => tab.getByRole('listitem').filter({ hasText: text });
    const sendNow = tab.getByRole('button', { name: 'Send now' });
    try {
      await tab.goto(
        `${origin}/react/index.html?${new URLSearchParams({ base: server.url, token: TOKEN })}`,
      );
      const [id, name] = [tab.getByPlaceholder('id'), tab.getByPlaceholder('name')];
      const create = tab.getByRole('button', { name: 'Create' });
      const queue = tab.getByRole('button', { name: 'Queue' });
      // As you type: each keystroke is validated, and the issue shows at once.
      await id.pressSequentially('12ab');
      await tab.getByText('id must be an integer').waitFor();
      assert.equal(await create.isDisabled(), true);
      const first = nextId();
      await id.fill(String(first));
      await name.pressSequentially('Fern');
      await tab.getByText('id must be an integer').waitFor({ state: 'detached' });
      await create.click();
      await tab.locator('output', { hasText: 'Created Fern' }).waitFor();
      assert.deepEqual(await server.json(`/__test/plants/${first}`), {
        id: String(first),
        name: 'Fern',
        tag: null,
      });
      // The same id again: useMutation's error is the PlantStoreError, its message the store's.
      await create.click();
      await tab.locator('output', { hasText: `a plant with id ${first} already exists` }).waitFor();
      // Queued: the entry shows, then changes to created, through useSyncExternalStore.
      const queued = nextId();
      await id.fill(String(queued));
      await queue.click();
      await entry('Fern: created').waitFor();
      assert.deepEqual(await server.json(`/__test/plants/${queued}`), {
        id: String(queued),
        name: 'Fern',
        tag: null,
      });
      // Another plant under the id of that entry: add's rejection is on screen, in its words.
      await name.fill('Fig');
      await queue.click();
      await tab
        .getByRole('alert')
        .filter({ hasText: 'the outbox already holds another plant with this id' })
        .waitFor();
      assert.equal(await entry('Fig').count(), 0);
      await name.fill('Fern');
      // The id the store holds: rejected, with the store's message and what the app can do; a
      // later action clears the failure shown.
      await id.fill(String(first));
      await queue.click();
      const refused = entry(`Fern: rejected a plant with id ${first} already exists`);
      await refused.waitFor();
      assert.equal(await tab.getByRole('alert').count(), 0);
      assert.deepEqual(await refused.getByRole('button').allTextContents(), [
        'Retry',
        'Remove',
        'It is there',
      ]);
      await tab.screenshot({ path: join(ROOT, 'artifacts/react.png') });
      await refused.getByRole('button', { name: 'Remove' }).click();
      await refused.waitFor({ state: 'detached' });

      // Offline: Create fails at once with the network error (networkMode 'always'), on screen;
      // Queue keeps the plant, sent when the browser is back online.
      await tab.context().setOffline(true);
      const offline = nextId();
      await id.fill(String(offline));
      await name.fill('Ivy');
      await create.click();
      await tab.locator('output', { hasText: 'could not reach the Plant Store' }).waitFor();
      assert.equal(await create.isDisabled(), false, 'not a paused mutation');
      await queue.click();
      await entry('Ivy: pending').waitFor();
      await tab.context().setOffline(false);
      await entry('Ivy: created').waitFor();

      // An outage of the store (its requests refused): each failure doubles the entry's wait (1 s,
      // 2 s, …: after the seventh, at least 32 s). "Send now" then sends it at once: created within
      // the 15 s this waits, which only the flush can do.
      let refusedRequests = 0;
      await tab.route('**/plants', (route) => {
        if (route.request().method() === 'POST') refusedRequests++;
        return route.abort('connectionrefused');
      });
      const outage = nextId();
      await id.fill(String(outage));
      await name.fill('Yew');
      await queue.click();
      const refusedAt = async (count) => {
        while (refusedRequests < count) await new Promise((resolve) => setTimeout(resolve, 20));
      };
      for (let tries = 1; tries < 7; tries++) {
        await refusedAt(tries);
        await sendNow.click(); // during the outage: one more failure
      }
      await refusedAt(7);
      await entry('Yew: pending').waitFor();
      await tab.unroute('**/plants');
      // "Send now", unless a flush clicked during the outage, queued behind a round then, has taken
      // the entry already (the button is gone once nothing is pending).
      if (await sendNow.isVisible()) await sendNow.click({ timeout: 5_000 }).catch(() => {});
      await entry('Yew: created').waitFor({ timeout: 60_000 });
      assert.equal((await server.json(`/__test/plants/${outage}`)).name, 'Yew');

      // A reload while the outbox sends (the store holds its answer a minute, far past the reload;
      // the reloaded page's is answered at once): sent again, with its key, and created once.
      const held = new URLSearchParams({ base: `${server.url}/__test/hold/60000`, token: TOKEN });
      await tab.goto(`${origin}/react/index.html?${held}`);
      const reloaded = nextId();
      await tab.getByPlaceholder('id').fill(String(reloaded));
      await tab.getByPlaceholder('name').fill('Palm');
      await tab.getByRole('button', { name: 'Queue' }).click();
      await tab.getByText('Palm: sending').waitFor();
      await tab.goto(
        `${origin}/react/index.html?${new URLSearchParams({ base: server.url, token: TOKEN })}`,
      );
      await tab.getByText('Palm: created').waitFor({ timeout: 60_000 });
      assert.deepEqual(await server.json(`/__test/plants/${reloaded}`), {
        id: String(reloaded),
        name: 'Palm',
        tag: null,
      });
      assert.deepEqual(pageErrors, []);
    } finally {
      await tab.close();
    }
  });

  it('esbuild, no config: emits no .wasm; the page creates a plant', async () => {
    const dir = join(OUT, 'esbuild');
    await run(join(BIN, 'esbuild'), [
      'web/index.js',
      '--bundle',
      '--format=esm',
      '--platform=browser',
      `--outdir=${dir}`,
      '--log-level=warning',
    ]);
    assert.deepEqual(emitted('esbuild'), []);
    page(dir, 'index.js');
    await assertPage('esbuild');
  });

  it('Rollup 4 with @rollup/plugin-node-resolve, no config: emits no .wasm; the page creates a plant', async () => {
    await run(join(BIN, 'rollup'), ['-c', 'rollup.config.mjs', '--silent']);
    const dir = join(OUT, 'rollup');
    assert.deepEqual(emitted('rollup'), []);
    page(dir, 'index.js');
    await assertPage('rollup');
  });

  it('bun build --target=browser, no config: emits no .wasm; the page creates a plant', async () => {
    const dir = join(OUT, 'bun');
    await run(join(BIN, 'bun'), ['build', 'web/index.js', '--target=browser', `--outdir=${dir}`]);
    assert.deepEqual(emitted('bun'), []);
    page(dir, 'index.js');
    await assertPage('bun');
  });

  it('the Bun runtime: an import (node.mjs) and a real call', async () => {
    const id = nextId();
    const { stdout } = await run(join(BIN, 'bun'), [
      'node-esm.mjs',
      server.url,
      TOKEN,
      String(id),
      'bun',
    ]);
    await assertChecked(JSON.parse(stdout.trim().split('\n').at(-1)), {
      id,
      where: 'bun',
      window: false,
    });
  });

  it('esbuild, a classic script (IIFE) in a page served with no charset, read as windows-1252: the page creates a plant', async () => {
    const dir = join(OUT, 'classic');
    await run(join(BIN, 'esbuild'), [
      'web/index.js',
      '--bundle',
      '--format=iife',
      '--platform=browser',
      `--outdir=${dir}`,
      '--log-level=warning',
    ]);
    writeFileSync(join(dir, 'index.html'), '<!doctype html><script src="./index.js"></script>\n');
    await assertPage('charset', 'classic');
  });

  describe('a module that cannot be compiled, in Chromium: the import succeeds, every export fails with a config PlantStoreError', () => {
    before(async () => {
      // The failure page, built by esbuild; the /csp/ mount serves it with its CSP.
      const dir = join(OUT, 'failure');
      await run(join(BIN, 'esbuild'), [
        'web/failure.js',
        '--bundle',
        '--format=esm',
        '--platform=browser',
        `--outdir=${dir}`,
        '--log-level=warning',
      ]);
      page(dir, 'failure.js');
    });

    /** Opens the failure page at /<mount>/: each export's outcome, each the same config error. */
    async function assertFailure(mount, message, cause) {
      const before = await server.stats();
      const query = new URLSearchParams({ base: server.url, token: TOKEN });
      const { result, pageErrors } = await openPage(
        browser,
        `${origin}/${mount}/index.html?${query}`,
      );
      assert.deepEqual(pageErrors, [], 'no uncaught error, no unhandled rejection');
      const error = result.createPlant.rejected;
      assert.ok(error, `createPlant rejects: ${JSON.stringify(result)}`);
      assert.deepEqual(
        { isPlantStoreError: error.isPlantStoreError, kind: error.kind },
        { isPlantStoreError: true, kind: 'config' },
      );
      assert.match(error.message, message);
      assert.match(error.cause, cause);
      assert.deepEqual(result, {
        createPlant: { rejected: error },
        validateNewPlant: { threw: error },
        PlantStoreClient: { threw: error },
        init: { rejected: error },
      });
      const after = await server.stats();
      assert.equal(after.requests - before.requests, 0, 'nothing was sent');
    }

    it("a Content-Security-Policy without 'wasm-unsafe-eval': the message names the CSP and the fix", async () => {
      await assertFailure(
        'csp',
        /^plant-store-client could not compile its wasm module \(CompileError: .*Content Security Policy.*\): a Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src$/,
        /^CompileError: .*Content Security Policy/,
      );
    });
  });

  describe('Next.js, the app router: next build, then next start', () => {
    let next; // the `next start` process
    let url;
    let output = '';

    before(async () => {
      const cwd = join(WORK, 'next');
      // The edge runtime needs the .wasm as a WebAssembly.Module: Next.js's `?module` import
      // (edge-light.js).
      await run(join(BIN, 'next'), ['build'], { cwd, timeout: 400_000 });
      const port = await freePort();
      next = spawn(join(BIN, 'next'), ['start', '-H', '127.0.0.1', '-p', String(port)], {
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
      });
      next.stdout.on('data', (chunk) => {
        output += chunk;
      });
      next.stderr.on('data', (chunk) => {
        output += chunk;
      });
      url = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 120_000;
      while (
        !(await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (next.exitCode !== null || Date.now() > deadline)
          throw new Error(`next start did not answer:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });

    after(async () => {
      if (next && next.exitCode === null) {
        next.kill('SIGTERM');
        await once(next, 'exit');
      }
    });

    it('a client component: the page creates a plant from the browser', async () => {
      const id = nextId();
      const query = new URLSearchParams({ base: server.url, token: TOKEN, id: String(id) });
      const { result, pageErrors } = await openPage(browser, `${url}/?${query}`);
      assert.deepEqual(pageErrors, []);
      await assertChecked(result, { id, where: 'next-client' });
    });

    for (const runtime of ['node', 'edge']) {
      it(`a route handler on the ${runtime} runtime creates a plant`, async () => {
        const id = nextId();
        const response = await fetch(`${url}/api/${runtime}`, {
          method: 'POST',
          body: JSON.stringify({ baseUrl: server.url, token: TOKEN, id: String(id) }),
          signal: AbortSignal.timeout(60_000),
        });
        const result = await response.json();
        assert.equal(response.status, 200, `${JSON.stringify(result)}\n${output}`);
        await assertChecked(result, { id, where: `next-${runtime}`, window: false });
      });
    }
  });
});
