// End to end: the demo page in www/ driven in headless Chromium against the reference server, which
// serves the page, the built package and the API on one origin. Saves a screenshot of each state to
// look at: artifacts/demo.png (a refusal), demo-401.png, demo-queue.png (paused),
// demo-queue-refused.png (a duplicate id in the queue), demo-bad-base-url.png (ftp://x),
// demo-queue-offline.png (the package not loaded) and demo-queue-misconfigured.png (a CSP),
// demo-phone.png (375 px wide). Last, `scripts/demo` itself: its first start, the package not yet
// built, shows each step with its time before the banner; its second start, the banner alone; a
// plant its page's service worker delivers with no page open, in its log; the port it serves on
// (--port N, PORT=N), a port already taken, its usage.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from './support/browser.mjs';
import { startServer, ROOT, PKG, TOKEN } from './support/server.mjs';

const ARTIFACTS = join(ROOT, 'artifacts');
const BIG_ID = '9007199254740993'; // 2^53 + 1: a Number would turn it into ...992

describe('demo page (www/) in headless Chromium', { timeout: 90_000 }, () => {
  let server;
  let browser;
  let page;
  const seen = { console: [], errors: [], requests: [] };

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer({ www: join(ROOT, 'www'), pkg: PKG });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 860 } });
    page.setDefaultTimeout(30_000);
    page.on('console', (m) => seen.console.push(m.text()));
    page.on('pageerror', (e) => seen.errors.push(String(e)));
    page.on('request', (r) => seen.requests.push({ url: r.url(), method: r.method() }));
    await page.goto(`${server.url}/`);
    // The button is enabled once the wasm client has loaded.
    await page.locator('#submit:enabled').waitFor();
    assert.equal(
      await page.inputValue('#base-url'),
      server.url,
      'the base URL is pre-filled with the page origin',
    );
    assert.equal(await page.inputValue('#token'), 'demo-token', 'the demo token is pre-filled');
    await page.fill('#token', TOKEN); // startServer's token
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  const result = () => page.locator('#result-body');
  const history = () => page.locator('#history > li');
  /** Waits for the result card with this title. */
  const outcome = (title) =>
    page.locator('#result-body .outcome-title', { hasText: title }).waitFor();

  it('creates a plant with an id beyond 2^53 and shows it, the id kept exact', async () => {
    await page.fill('#plant-id', BIG_ID);
    await page.fill('#plant-name', 'Monstera');
    await page.fill('#plant-tag', 'tropical');
    await page.click('#submit');
    await outcome('Created “Monstera”');
    const shown = await result().innerText();
    assert.match(shown, /tropical/);
    assert.match(shown, new RegExp(BIG_ID));
    const stored = await server.json(`/__test/plants/${BIG_ID}`);
    assert.deepEqual(stored, { id: BIG_ID, name: 'Monstera', tag: 'tropical' });
    assert.equal(await history().count(), 1);
    assert.match(await history().first().innerText(), /Created “Monstera”/);
    assert.match(
      await history().first().innerText(),
      /1 attempt: 200/,
      'the history shows the attempts',
    );
  });

  it('shows an invalid id next to the field as it is typed, and sends nothing on submit', async () => {
    const before = await server.stats();
    const sentBefore = seen.requests.filter((r) => r.url.endsWith('/plants')).length;
    await page.fill('#plant-id', '');
    await page.locator('#plant-id').pressSequentially('12ab');
    const fieldError = page.locator('#plant-id-error');
    await fieldError.getByText('id must be an integer').waitFor();
    assert.equal(await page.getAttribute('#plant-id', 'aria-invalid'), 'true');
    assert.match(await page.getAttribute('#plant-id', 'aria-describedby'), /plant-id-error/);

    // The button stays usable; submitting (Enter, from the keyboard) shows the issue and sends nothing.
    await page.locator('#plant-id').press('Enter');
    await outcome('Check the highlighted fields');
    assert.match(await result().innerText(), /Nothing was sent/);
    assert.match(await result().innerText(), /id must be an integer/);
    assert.equal(
      await page.evaluate(() => document.activeElement.id),
      'plant-id',
      'focus goes to the invalid field',
    );
    assert.match(await history().first().innerText(), /Not sent/);
    assert.deepEqual(await server.stats(), before, 'no request reached the server');
    assert.equal(
      seen.requests.filter((r) => r.url.endsWith('/plants')).length,
      sentBefore,
      'the page made no request',
    );

    // Fixing the id clears the message.
    await page.fill('#plant-id', '12');
    await page.locator('#plant-id-error:empty').waitFor({ state: 'attached' });
    assert.equal(await page.getAttribute('#plant-id', 'aria-invalid'), null);
  });

  it('shows a duplicate id as the server’s rejection, with status and code', async () => {
    await page.fill('#plant-id', BIG_ID);
    await page.fill('#plant-name', 'Another Monstera');
    await page.locator('#plant-name').press('Enter');
    await outcome('The Plant Store refused this plant');
    const shown = await result().innerText();
    assert.match(shown, new RegExp(`a plant with id ${BIG_ID} already exists`));
    assert.match(shown, /rejected/);
    assert.match(shown, /HTTP status\s+400/);
    assert.match(shown, /Error code\s+3/);
    assert.match(await history().first().innerText(), /Refused/);
    assert.match(await history().first().innerText(), /1 attempt: 400/);
    await page.screenshot({ path: join(ARTIFACTS, 'demo.png'), fullPage: true });
  });

  it("shows a refused token once: the client's message names the 401, nothing repeats it", async () => {
    await page.fill('#token', 'not-the-token');
    await page.fill('#plant-id', '401');
    await page.fill('#plant-name', 'Fern');
    await page.click('#submit');
    await outcome('The Plant Store did not accept the token');
    const shown = await result().innerText();
    assert.equal(shown.split('401').length - 1, 1, `"401" once:\n${shown}`);
    assert.match(
      shown,
      /the Plant Store answered 401 \(error 4\): missing or invalid bearer token/,
    );
    assert.match(await history().first().innerText(), /1 attempt: 401 · code 4 · unauthorized$/);
    await page.screenshot({ path: join(ARTIFACTS, 'demo-401.png'), fullPage: true });
    await page.fill('#token', TOKEN);
  });

  it('queues plants while working offline, shows each state, and sends each once when back', async () => {
    const queued = () => page.locator('#queue > li');
    await page.locator('#queue-add:enabled').waitFor();
    const before = await server.stats();
    await page.check('#queue-offline');
    for (const [id, name] of [
      ['9001', 'Aloe'],
      ['9002', 'Basil'],
      ['9003', 'Cactus'],
    ]) {
      await page.fill('#plant-id', id);
      await page.fill('#plant-name', name);
      await page.click('#queue-add');
      // The Result card tells what the queue action did, not the last call.
      await result().getByText(`“${name}” is in the queue`).waitFor();
    }
    await page.locator('#queue > li.pending').nth(2).waitFor();
    assert.equal(await queued().count(), 3);
    assert.match(await queued().first().innerText(), /“Cactus”\s*waiting/);
    assert.equal(await page.locator('#queue-progress-text').innerText(), 'paused: 3 waiting');
    assert.equal(await page.locator('#queue-progress').isVisible(), true, 'the progress bar shows');

    await page.fill('#plant-id', '1.5');
    await page.click('#queue-add');
    await outcome('Check the highlighted fields');
    assert.equal(await queued().count(), 3, 'an invalid plant is not queued');
    await page.fill('#plant-id', '9004');
    await page.screenshot({ path: join(ARTIFACTS, 'demo-queue.png'), fullPage: true });
    assert.deepEqual(
      await server.stats().then((s) => s.plants - before.plants),
      0,
      'nothing sent while offline',
    );

    await page.uncheck('#queue-offline');
    await page.locator('#queue > li.created').nth(2).waitFor();
    await page.locator('#queue-progress').waitFor({ state: 'hidden' });
    assert.equal((await server.stats()).plants - before.plants, 3, 'each created once');
    assert.equal((await server.json('/__test/plants/9002')).name, 'Basil');
    assert.match(await queued().first().innerText(), /created[\s\S]*1 attempt/);
    await page.click('#queue-clear');
    await page.locator('#queue-empty').waitFor();
    await result().getByText('The created plants were cleared from the queue.').waitFor();
  });

  it('offers no "Send again" for an entry refused as a duplicate id, only "Remove"', async () => {
    await page.fill('#plant-id', BIG_ID); // created by the first test
    await page.fill('#plant-name', 'Monstera again');
    await page.click('#queue-add');
    const refused = page.locator('#queue > li.rejected');
    await refused.waitFor();
    assert.match(
      await refused.innerText(),
      new RegExp(`refused[\\s\\S]*a plant with id ${BIG_ID} already exists`),
    );
    assert.equal(await refused.getByRole('button', { name: 'Send again' }).count(), 0);
    // The Result card said it was queued; once refused, it says so.
    await outcome('The Plant Store refused “Monstera again” from the queue');
    assert.match(
      await result().innerText(),
      new RegExp(`a plant with id ${BIG_ID} already exists`),
    );
    assert.doesNotMatch(await result().innerText(), /is sent once the store can be reached/);
    await page.screenshot({ path: join(ARTIFACTS, 'demo-queue-refused.png'), fullPage: true });
    await refused.getByRole('button', { name: 'Remove' }).click();
    await page.locator('#queue-empty').waitFor();
    await result().getByText('“Monstera again” was removed from the queue.').waitFor();
  });

  it('a bad base URL (ftp://x): the queue says it stopped and why, each button shows the cause, nothing is uncaught; a good one brings the queue back', async () => {
    const cause = 'options.baseUrl must start with http:// or https://';
    await page.fill('#base-url', 'ftp://x');
    await page.locator('#base-url').press('Tab'); // its `change`: the queue opens again with it
    const status = page.locator('#queue-status');
    await status.getByText(`The queue is stopped: ${cause}`).waitFor();
    await page.fill('#plant-id', '8001');
    await page.fill('#plant-name', 'Fern');
    const shown = async () => {
      await outcome('The connection settings cannot be used');
      const text = await result().innerText();
      assert.ok(text.includes(cause), text);
      assert.doesNotMatch(text, /closed/);
    };
    await page.click('#queue-add');
    await shown();
    const calls = await history().count();
    await page.click('#submit');
    await history().nth(calls).waitFor(); // the call's line in the history
    await shown();
    await page.screenshot({ path: join(ARTIFACTS, 'demo-bad-base-url.png'), fullPage: true });
    assert.deepEqual(seen.errors, [], 'no uncaught error');

    await page.fill('#base-url', server.url);
    await page.locator('#base-url').press('Tab');
    await status.waitFor({ state: 'hidden' });
    await page.click('#queue-add');
    await page.locator('#queue > li.created', { hasText: '8001' }).waitFor();
    await result().getByText('“Fern”, from the queue, was created.').waitFor();
    await page.click('#queue-clear');
    await page.locator('#queue-empty').waitFor();
  });

  it('shows a stopped server as a network problem', async () => {
    await server.stop();
    await page.fill('#plant-id', '7');
    await page.fill('#plant-name', 'Fern');
    await page.fill('#plant-tag', '');
    await page.click('#submit');
    await outcome('Could not reach the Plant Store');
    assert.match(await result().innerText(), /network/);
    assert.equal(await history().count(), 6);
    assert.match(
      await history().first().innerText(),
      /3 attempts: network → network → network$/,
      'the kind is not repeated',
    );
    assert.equal(await page.locator('#submit:enabled').count(), 1, 'the button is usable again');

    await page.setViewportSize({ width: 375, height: 812 });
    await page.screenshot({ path: join(ARTIFACTS, 'demo-phone.png'), fullPage: true });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    assert.ok(overflow <= 0, `no horizontal scrolling at 375 px (overflow ${overflow}px)`);
  });

  it('never puts the token in the URL, the page text, the console or a request URL', async () => {
    assert.ok(!page.url().includes(TOKEN));
    assert.ok(!(await page.locator('body').innerText()).includes(TOKEN));
    assert.ok(!seen.console.some((line) => line.includes(TOKEN)), seen.console.join('\n'));
    assert.ok(!seen.requests.some((r) => r.url.includes(TOKEN)));
    assert.deepEqual(seen.errors, [], 'no uncaught errors in the page');
  });
});

describe("the demo's queue when the package does not load, and the package as its import resolves", {
  timeout: 90_000,
}, () => {
  let server;
  let browser;
  const OUTBOX = '**/pkg/outbox/index.js';

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer({ www: join(ROOT, 'www'), pkg: PKG });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A fresh page of its own context (no cache, no IndexedDB), its page errors collected. */
  async function freshPage() {
    const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    return { context, page, errors };
  }

  it('the connection drops before the package arrives: it says so, and loads when the browser is back online', async () => {
    const { context, page, errors } = await freshPage();
    try {
      await context.route(OUTBOX, (route) => route.abort('internetdisconnected'));
      await page.goto(`${server.url}/`);
      const offline =
        'Offline: the client’s code could not be downloaded. It loads as soon as the connection is back.';
      await page.locator('#form-status').getByText(offline).waitFor();
      await page.locator('#queue-empty').getByText(offline).waitFor();
      assert.ok(
        !(await page.locator('#queue-empty').innerText()).includes('bundle'),
        'no advice for a bundler',
      );
      assert.equal(await page.locator('#submit').isDisabled(), true);
      assert.equal(await page.locator('#queue-add').isDisabled(), true);
      await page.screenshot({ path: join(ARTIFACTS, 'demo-queue-offline.png'), fullPage: true });

      await context.unroute(OUTBOX);
      await context.setOffline(true);
      await context.setOffline(false); // the browser's `online` event
      await page.locator('#submit:enabled').waitFor();
      await page.locator('#queue-add:enabled').waitFor();
      await page.locator('#queue-empty').getByText('Nothing queued.').waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it("a Content-Security-Policy without 'wasm-unsafe-eval': the package's advice shows, and nothing is tried again", async () => {
    const { context, page } = await freshPage();
    try {
      await context.route(`${server.url}/`, async (route) => {
        const response = await route.fetch();
        const csp = "script-src 'self'";
        await route.fulfill({
          response,
          headers: { ...response.headers(), 'content-security-policy': csp },
        });
      });
      let asked = 0;
      await context.route(OUTBOX, (route) => {
        asked++;
        return route.continue();
      });
      await page.addInitScript(() =>
        addEventListener('online', () => {
          window.onlines = (window.onlines ?? 0) + 1;
        }),
      );
      await page.goto(`${server.url}/`);
      const empty = page.locator('#queue-empty');
      await empty
        .getByText(
          'The client could not be loaded: plant-store-client could not compile its wasm module',
        )
        .waitFor();
      assert.match(
        await empty.innerText(),
        /Content Security Policy.*\): a Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src$/,
      );
      await page.screenshot({
        path: join(ARTIFACTS, 'demo-queue-misconfigured.png'),
        fullPage: true,
      });
      await context.setOffline(true);
      await context.setOffline(false);
      await page.waitForFunction(() => window.onlines === 1);
      // A request after the `online` event: one made for the package would have come before it.
      assert.equal(await page.evaluate(() => fetch('/').then((r) => r.status)), 200);
      assert.equal(asked, 1, 'fetched once');
      assert.equal(await page.locator('#submit').isDisabled(), true);
    } finally {
      await context.close();
    }
  });

  it('as the import of the default entry resolves, validateNewPlant answers and a call is sent, with no request but the script', async () => {
    const { context, page } = await freshPage();
    try {
      await page.goto(`${server.url}/`);
      // A module instance of its own (its own URL), imported and used at once.
      const seen = await page.evaluate(async () => {
        const start = performance.now();
        const api = await import('/pkg/index.js?at-import');
        const atImport = api.validateNewPlant({ id: 1, name: 'Fern' }).ok;
        const client = new api.PlantStoreClient({
          baseUrl: location.origin,
          token: 'not-the-token',
        });
        const call = await client.createPlant({ id: 1, name: 'Fern' }).then(
          () => 'created',
          (err) => err.kind,
        );
        // The requests this import and call started (the page's own may still be arriving).
        const requested = performance
          .getEntriesByType('resource')
          .filter((entry) => entry.startTime >= start)
          .map((entry) => new URL(entry.name).pathname);
        return { atImport, call, requested };
      });
      assert.deepEqual(seen, {
        atImport: true,
        call: 'unauthorized', // sent, and refused for its token
        requested: ['/pkg/index.js', '/plants'],
      });
    } finally {
      await context.close();
    }
  });
});

describe('scripts/demo: the first start shows its progress, the second only the banner; its port', {
  timeout: 900_000,
}, () => {
  let pkg;
  let shims; // a `cargo` on PATH that takes its time over the server's build
  let taken; // a server on a port of its own

  before(async () => {
    pkg = mkdtempSync(join(tmpdir(), 'plant-store-demo-pkg-'));
    shims = mkdtempSync(join(tmpdir(), 'plant-store-demo-shims-'));
    const cargo = execFileSync('sh', ['-c', 'command -v cargo'], { encoding: 'utf8' }).trim();
    writeFileSync(
      join(shims, 'cargo'),
      `#!/bin/sh\n[ "$*" = "build --release -p plant-store-server" ] && sleep 5\nexec ${cargo} "$@"\n`,
      { mode: 0o755 },
    );
    taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
  });
  after(() => {
    taken?.close();
    for (const dir of [pkg, shims]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A port no one listens on now. */
  async function freePort() {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address();
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }

  /**
   * Runs `scripts/demo args` with its package in `pkg` (PORT=0: a free port, unless `env` says)
   * until its banner, then `during(url, printed)` if given (`printed()`: all it printed so far);
   * then stops it, the script and the server it started (their process group). Resolves to what it
   * printed before the banner, the page's URL, and whether the page's package was served.
   */
  async function start(args = [], env = { PORT: '0' }, during = undefined) {
    const demo = spawn(join(ROOT, 'scripts/demo'), args, {
      env: { ...process.env, PKG_DIR: pkg, TOKEN, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    demo.stdout.on('data', (chunk) => {
      output += chunk;
    });
    demo.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const exited = once(demo, 'exit');
    try {
      const url = await new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no banner within 14 min:\n${output}`)),
          840_000,
        );
        demo.on('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`scripts/demo exited with ${code}:\n${output}`));
        });
        demo.stdout.on('data', () => {
          const match = output.match(
            /page: +(http:\/\/127\.0\.0\.1:\d+)\/[\s\S]*Ctrl-C stops the server/,
          );
          if (match) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
      });
      const served = (await fetch(`${url}/pkg/index.js`)).status;
      await during?.(url, () => output);
      // A wait for another cargo's lock (scripts/test runs cargo beside this suite) builds nothing:
      // what the demo says of it is left out, so that a start that built nothing printed nothing.
      let before = output.slice(0, output.indexOf('\n  Plant Store demo'));
      if (LOCK_WAIT.test(before))
        before = before.replace(LOCK_WAIT, '').replace(/^ready in \d+ s\n$/, '');
      return { before, url, served };
    } finally {
      if (demo.exitCode === null) {
        process.kill(-demo.pid, 'SIGTERM');
        await exited;
      }
    }
  }

  /** What the demo prints when cargo only waited for a lock that another cargo held. */
  const LOCK_WAIT =
    /^building the reference server \(cargo build --release\)… built already: cargo waited \d+ s for a lock another cargo held\n/m;

  /** Runs a command to its end: its exit code and what it printed (stdout and stderr). */
  function finish(command, args, env = {}) {
    return new Promise((resolve) => {
      execFile(
        command,
        args,
        { env: { ...process.env, ...env }, timeout: 120_000 },
        (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr }),
      );
    });
  }

  it('first start (the package not built yet): a line per step as it begins, its time when it ends, then the whole time', async () => {
    const { before, served } = await start();
    const steps = [
      'the JS API: compiling the crate to wasm',
      'the JS API: its JS bindings (wasm-bindgen)',
      'the JS API: shrinking the .wasm (wasm-opt)',
      'the outbox: compiling the crate to wasm',
      'the outbox: its JS bindings (wasm-bindgen)',
      'the outbox: shrinking the .wasm (wasm-opt)',
      'the entries, their types and package.json (finish-pkg.mjs)',
    ];
    const lines = before.split('\n');
    assert.match(
      lines[0],
      /^building the package into \S+ \(scripts\/build-pkg\), reused until its sources change:$/,
      before,
    );
    let at = 0;
    for (const step of steps) {
      const found = lines.findIndex((line, i) => i > at && line.startsWith(`  ${step}`));
      assert.ok(found > at, `"${step}" after the step before it:\n${before}`);
      assert.match(lines[found], /… done \(\d+ s\)$/, lines[found]);
      at = found;
    }
    assert.match(lines.at(-2), /^ready in \d+ s$/, before);
    assert.ok(!/^\s+Compiling /m.test(before), `no compiler output:\n${before}`);
    assert.equal(served, 200, 'the server serves the package it built');
  });

  it("the README's Install line after the demo: scripts/build-pkg reuses the demo's build", async () => {
    const stamp = statSync(join(pkg, '.sources')).mtimeMs;
    const { code, stdout } = await finish(join(ROOT, 'scripts/build-pkg'), [pkg]);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /is a build of these sources, reused \(--force builds it again\)\n$/);
    assert.equal(statSync(join(pkg, '.sources')).mtimeMs, stamp, 'nothing was built');
  });

  it('second start, on the port --port names: the banner alone, though the check of the server takes its time', async () => {
    const port = await freePort();
    const { before, url, served } = await start(['--port', String(port)], {
      PORT: '',
      PATH: `${shims}:${process.env.PATH}`,
    });
    assert.equal(before, '', 'nothing before the banner');
    assert.equal(url, `http://127.0.0.1:${port}`);
    assert.equal(served, 200);
  });

  it('a plant queued offline, the tab closed, back online: the log shows it arrive, sent by the page’s service worker', async () => {
    await start([], { PORT: '0', TOKEN: 'demo-token' }, async (url, printed) => {
      const browser = await launchChromium();
      try {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(`${url}/`);
        await page.locator('#queue-add:enabled').waitFor();
        await page.evaluate(() => navigator.serviceWorker.ready);
        await context.setOffline(true);
        await page.fill('#plant-id', '7301');
        await page.fill('#plant-name', 'Carried');
        await page.click('#queue-add');
        await page.locator('#queue > li.pending').waitFor();
        // The add asked Background Sync of the page's worker (a page closed before that is
        // delivered by the next page: docs/outbox.md).
        const asked = async () =>
          (await (await navigator.serviceWorker.ready).sync.getTags()).length;
        await page.waitForFunction(asked, null, { timeout: 30_000 });
        await page.close();
        await context.setOffline(false); // no page open: the worker delivers
        const logged = /\ncreated plant 7301 "Carried"\n/;
        for (const end = Date.now() + 30_000; !logged.test(printed()); ) {
          assert.ok(Date.now() < end, `no line for the plant in the log:\n${printed()}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await browser.close();
      }
    });
  });

  it('PORT=N: the port it names', async () => {
    const port = await freePort();
    const { before, url } = await start([], { PORT: String(port) });
    assert.equal(before, '');
    assert.equal(url, `http://127.0.0.1:${port}`);
  });

  it('a port already taken: said at once, with the fix, before anything is built', async () => {
    const { port } = taken.address();
    for (const [args, env] of [
      [['--port', String(port)], {}],
      [['rust'], { PORT: String(port) }],
    ]) {
      const { code, stdout, stderr } = await finish(join(ROOT, 'scripts/demo'), args, {
        PKG_DIR: join(pkg, 'never'),
        ...env,
      });
      assert.equal(code, 1);
      assert.equal(stdout, '');
      assert.equal(
        stderr,
        `scripts/demo: port ${port} on 127.0.0.1 is taken (another demo, or another server, listens there).\n` +
          `  Choose another: scripts/demo --port ${port + 1}   (or --port 0: any free port)\n`,
      );
    }
    // The server itself says so too (a port taken between the demo's check and its start), without
    // its usage, which is for a wrong argument.
    const server = await finish(join(ROOT, 'target/release/plant-store-server'), [
      '--port',
      String(port),
      '--token',
      TOKEN,
    ]);
    assert.equal(server.code, 1);
    assert.match(
      server.stderr,
      new RegExp(`^plant-store-server: port ${port} on 127\\.0\\.0\\.1 is already in use`),
    );
    assert.ok(!server.stderr.includes('usage:'), server.stderr);
  });

  it('a wrong argument: the usage, which names rust and --port', async () => {
    for (const args of [['--port'], ['--port', 'x'], ['--prot', '80']]) {
      const { code, stderr } = await finish(join(ROOT, 'scripts/demo'), args);
      assert.equal(code, 2, args.join(' '));
      assert.match(
        stderr,
        /^usage: scripts\/demo \[rust\] \[--port N\] {3}\(or PORT=N scripts\/demo; N=0: any free port\)$/m,
      );
    }
  });
});
