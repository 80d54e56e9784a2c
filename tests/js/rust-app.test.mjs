// The Rust example of README.crate.md, as a user meets it: tests/rust-app/ holds the README's
// Cargo.toml and code, exactly as written (checked here), and `scripts/demo rust`, the README's one
// command, builds it for the browser with the crate's default features off (`features = ["std"]`)
// and serves its page with a reference Plant Store. In Chromium the page sends a fern: created,
// then refused the second time, as the app logs them; a store that cannot be reached rejects the
// app's promise with the crate's message. Its bindings hold its own export only: none of the
// crate's (createPlant, PlantStoreClient, validateNewPlant, PlantStoreError), and of its JS files
// only the call's shell (js/call.js). `wasm-pack build --target web`, the README's build, works
// both ways the README gives where wasm-pack cannot download binaryen: npm's wasm-opt on PATH, or
// wasm-opt turned off.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium, openPage } from './support/browser.mjs';
import { ROOT, TOKEN } from './support/server.mjs';

const APP = join(ROOT, 'tests/rust-app');
const BUILT = join(ROOT, 'target/rust-app/www/pkg');

/** The fenced blocks of `language` in README.crate.md, as written. */
const blocks = (language) =>
  [
    ...readFileSync(join(ROOT, 'README.crate.md'), 'utf8').matchAll(
      new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'),
    ),
  ].map((m) => m[1]);

let demo; // `scripts/demo rust`
let output = '';
let url;
let browser;

before(async () => {
  // PORT=0: a free port, which the banner names.
  demo = spawn(join(ROOT, 'scripts/demo'), ['rust'], {
    env: { ...process.env, PORT: '0', TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  demo.stdout.on('data', (chunk) => {
    output += chunk;
  });
  demo.stderr.on('data', (chunk) => {
    output += chunk;
  });
  url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no banner within 15 min:\n${output}`)),
      900_000,
    );
    demo.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`scripts/demo rust exited with ${code}:\n${output}`));
    });
    demo.stdout.on('data', () => {
      const match = output.match(/page: +(http:\/\/127\.0\.0\.1:\d+)\//);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  // The script and the server it started: their process group.
  if (demo?.exitCode === null) process.kill(-demo.pid, 'SIGTERM');
});

test("README.crate.md's Cargo.toml and code are the app's, as written", () => {
  const [toml] = blocks('toml');
  const manifest = readFileSync(join(APP, 'Cargo.toml'), 'utf8');
  // The one difference: the app depends on this checkout by path.
  const local = toml.replace('version = "0.1"', 'path = "../.."');
  assert.ok(
    manifest.includes(local),
    `tests/rust-app/Cargo.toml holds the README's lines:\n${local}`,
  );
  const [code] = blocks('rust,ignore');
  assert.equal(
    readFileSync(join(APP, 'src/lib.rs'), 'utf8'),
    code,
    "tests/rust-app/src/lib.rs is the README's code",
  );
});

test('scripts/demo rust prints one line per build and the banner', () => {
  assert.match(
    output,
    /^building the Rust example \(tests\/rust-app\/\)… done \(\d+ s\)$/m,
    output,
  );
  assert.ok(!/^\s+Compiling /m.test(output), `no compiler output:\n${output}`);
});

test("the app's bindings hold its own export only", () => {
  const types = readFileSync(join(BUILT, 'plant_app.d.ts'), 'utf8');
  const exported = [...types.matchAll(/^export (?:function|class|const) (\w+)/gm)]
    .map((m) => m[1])
    .filter((name) => name !== 'initSync');
  assert.deepEqual(exported, ['add_fern'], types);
  // One JS snippet of the crate: the call's shell (js/call.js, src/shell.rs), which does the fetch;
  // none of the JS API's (js/error.js).
  const snippets = readdirSync(join(BUILT, 'snippets'), { recursive: true }).filter((name) =>
    name.endsWith('.js'),
  );
  assert.deepEqual(
    snippets.map((name) => name.replace(/^[^/]+\//, '')),
    ['js/call.js'],
    snippets.join('\n'),
  );
  const glue = readFileSync(join(BUILT, 'plant_app.js'), 'utf8');
  for (const name of ['createPlant', 'PlantStoreClient', 'validateNewPlant', 'PlantStoreError'])
    assert.ok(!glue.includes(name), name);
});

test('in Chromium the page sends a fern: created, then refused for the same id', async () => {
  const id = String(Date.now());
  const page = (query) => openPage(browser, `${url}/?${new URLSearchParams(query)}`);
  const first = await page({ token: TOKEN, id });
  assert.deepEqual(first.pageErrors, []);
  // Nothing the page asks for is missing (a favicon's 404 was).
  assert.deepEqual(
    first.messages.filter((line) => line.startsWith('error:')),
    [],
  );
  assert.equal(first.result, 'created Fern\n');
  const second = await page({ token: TOKEN, id });
  assert.equal(second.result, `refused: a plant with id ${id} already exists\n`);
  // Another error rejects the app's promise with the crate's message (Display).
  const refused = await page({ token: 'not-the-token', id });
  assert.match(refused.result, /^failed: the Plant Store answered 401 \(error 4\): /);
});

test("wasm-pack build --target web, where it cannot download binaryen: with npm's wasm-opt on PATH, or with wasm-opt off", async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'plant-app-wasm-pack-'));
  try {
    // PATH without a wasm-opt, so that wasm-pack would download one; and what `npm install --global
    // binaryen` adds to it: a link to the package's wasm-opt.
    const bare = process.env.PATH.split(':').filter((dir) => !existsSync(join(dir, 'wasm-opt')));
    const npmGlobal = join(tmp, 'bin');
    mkdirSync(npmGlobal);
    symlinkSync(join(ROOT, 'node_modules/binaryen/bin/wasm-opt'), join(npmGlobal, 'wasm-opt'));
    const [, off] = blocks('toml'); // the README's [package.metadata.wasm-pack.profile.release]
    assert.match(off, /^wasm-opt = false$/m);
    for (const [name, path, extra] of [
      ['on-path', [npmGlobal, ...bare], ''],
      ['off', bare, `\n${off}`],
    ]) {
      // The app as scripts/demo rust laid it out (the checkout's crate by path, its Cargo.lock).
      const app = join(tmp, name);
      cpSync(join(ROOT, 'target/rust-app/crate'), app, {
        recursive: true,
        filter: (from) => !from.endsWith('/pkg'),
      });
      appendFileSync(join(app, 'Cargo.toml'), extra);
      const env = {
        ...process.env,
        PATH: path.join(':'),
        CARGO_TARGET_DIR: join(ROOT, 'target/rust-app/target'),
      };
      await new Promise((resolve, reject) =>
        execFile(
          'wasm-pack',
          ['--log-level', 'warn', 'build', '--target', 'web'],
          { cwd: app, env, timeout: 600_000 },
          (err, out, errOut) =>
            err
              ? reject(new Error(`wasm-pack build (${name}): ${err.message}\n${out}${errOut}`))
              : resolve(),
        ),
      );
      assert.ok(existsSync(join(app, 'pkg/plant_app_bg.wasm')), `${name}: pkg/plant_app_bg.wasm`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
