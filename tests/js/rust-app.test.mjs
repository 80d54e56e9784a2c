// A Rust app that never touches the JS API: tests/rust-app/ (the README's Rust example, and one
// export of its own), copied to a scratch directory with its `path` dependency pointed at this
// checkout and the checkout's Cargo.lock (so that its wasm-bindgen is the CLI's), built for
// wasm32 with the crate's default features off (`features = ["std"]`), then bound by wasm-bindgen
// for Node and run against the reference server on loopback. Its bindings hold its own export
// only: none of the crate's (createPlant, PlantStoreClient, validateNewPlant, PlantStoreError).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, ROOT, TOKEN } from './support/server.mjs';

let dir;
let server;

/** Runs a command to its end; rejects with its output when it fails. */
function run(command, args, { cwd = dir, env } = {}) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout: 600_000, env: { ...process.env, ...env }, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(' ')} failed (${err.code ?? err.signal}):\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rust-app-'));
  cpSync(join(ROOT, 'tests/rust-app'), dir, { recursive: true });
  const manifest = join(dir, 'Cargo.toml');
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('path = "../.."', `path = ${JSON.stringify(ROOT)}`));
  cpSync(join(ROOT, 'Cargo.lock'), join(dir, 'Cargo.lock'));
  server = await startServer();
});

after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a Rust app without the JS exports: its bindings are its own, and it creates a plant', { timeout: 900_000 }, async () => {
  // The build cache is kept between runs, beside the checkout's.
  const target = join(ROOT, 'target/rust-app');
  await run('cargo', ['build', '--quiet', '--release', '--target', 'wasm32-unknown-unknown'], { env: { CARGO_TARGET_DIR: target } });
  const out = join(dir, 'out');
  await run('wasm-bindgen', ['--target', 'nodejs', '--out-dir', out, join(target, 'wasm32-unknown-unknown/release/plant_app.wasm')]);

  const types = readFileSync(join(out, 'plant_app.d.ts'), 'utf8');
  const exported = [...types.matchAll(/^export (?:function|class|const|type|interface) (\w+)/gm)].map((m) => m[1]);
  assert.deepEqual(exported, ['run'], types);
  assert.deepEqual(readdirSync(out).filter((name) => name === 'snippets'), [], 'no JS snippet (js/error.js) of the crate');
  const glue = readFileSync(join(out, 'plant_app.js'), 'utf8');
  for (const name of ['createPlant', 'PlantStoreClient', 'validateNewPlant', 'PlantStoreError']) assert.ok(!glue.includes(name), name);

  const id = Date.now();
  const before = await server.stats();
  const { stdout } = await run(process.execPath, ['-e',
    `require(${JSON.stringify(join(out, 'plant_app.js'))}).run(${JSON.stringify(server.url)}, ${JSON.stringify(TOKEN)}, ${id})`]);
  assert.equal(stdout, 'created Fern\n', 'the app prints through console.log');
  const after = await server.stats();
  assert.deepEqual({ requests: after.requests - before.requests, plants: after.plants - before.plants }, { requests: 1, plants: 1 });
});
