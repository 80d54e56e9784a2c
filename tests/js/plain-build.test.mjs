// The crate as wasm-pack builds it, with nothing of ours around it: `wasm-pack build --target web`
// (default features), loaded in Node with `initSync`. Its module exports the API itself, its .d.ts
// declares exactly what the module exports, and a call behaves as the README says. The build is
// wasm-pack's release build (no `--dev`, which adds a `__wasm` export) without the workspace
// profile's optimizer settings (opt-level "z", LTO, one codegen unit: 3 to 4 minutes of one core
// on a loaded machine), which change neither the exports nor the glue; in a target dir of its own,
// as no other step makes this build and in target/ it would wait for cargo's lock behind clippy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, ROOT, TOKEN } from './support/server.mjs';

const API = ['PlantStoreClient', 'PlantStoreError', 'createPlant', 'validateNewPlant'];

let out;
let server;

before(
  async () => {
    out = mkdtempSync(join(tmpdir(), 'plant-store-plain-'));
    await new Promise((resolve, reject) => {
      execFile(
        'wasm-pack',
        [
          '--log-level',
          'warn',
          'build',
          '--release',
          '--target',
          'web',
          '--out-dir',
          out,
          '--no-pack',
        ],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            CARGO_TARGET_DIR: join(ROOT, 'target/plain-build'),
            CARGO_PROFILE_RELEASE_OPT_LEVEL: '1',
            CARGO_PROFILE_RELEASE_LTO: 'false',
            CARGO_PROFILE_RELEASE_CODEGEN_UNITS: '16',
          },
          timeout: 600_000,
          maxBuffer: 16 << 20,
        },
        (err, stdout, stderr) =>
          err ? reject(new Error(`wasm-pack build failed:\n${stdout}\n${stderr}`)) : resolve(),
      );
    });
    server = await startServer();
  },
  { timeout: 660_000 },
);

after(async () => {
  await server?.stop();
  if (out) rmSync(out, { recursive: true, force: true });
});

test('the module exports the four names, and wasm-bindgen its loaders; the .d.ts declares the same', async () => {
  const glue = await import(pathToFileURL(join(out, 'plant_store_client.js')).href);
  assert.deepEqual(Object.keys(glue).sort(), [...API, 'default', 'initSync'].sort());
  const types = readFileSync(join(out, 'plant_store_client.d.ts'), 'utf8');
  const declared = [...types.matchAll(/^export (?:declare )?(?:function|class|const) (\w+)/gm)].map(
    (m) => m[1],
  );
  assert.deepEqual(declared.sort(), [...API, 'initSync'].sort(), 'each export is declared, once');
  assert.match(types, /^export default function __wbg_init/m);
});

test('loaded with initSync, it creates a plant, refuses an invalid one locally, and throws PlantStoreErrors', async () => {
  const glue = await import(pathToFileURL(join(out, 'plant_store_client.js')).href);
  glue.initSync({ module: readFileSync(join(out, 'plant_store_client_bg.wasm')) });
  const { createPlant, PlantStoreClient, validateNewPlant, PlantStoreError } = glue;
  const options = { baseUrl: server.url, token: TOKEN };
  const id = 90071992547409930n + BigInt(Date.now() % 1_000_000);
  const before = await server.stats();

  assert.deepEqual(await createPlant({ id, name: 'Fern', tag: 'plain' }, options), {
    name: 'Fern',
    tag: 'plain',
  });
  assert.deepEqual(await server.json(`/__test/plants/${id}`), {
    id: String(id),
    name: 'Fern',
    tag: 'plain',
  });

  const invalid = await createPlant({ id: 1.5, name: 'Fern', tags: 'x' }, options).then(
    () => null,
    (e) => e,
  );
  assert.ok(invalid instanceof PlantStoreError && invalid instanceof Error);
  assert.equal(invalid.name, 'PlantStoreError');
  assert.equal(invalid.kind, 'validation');
  assert.deepEqual(
    invalid.issues.map((i) => [i.path, i.code]),
    [
      ['id', 'not_integer'],
      ['tags', 'unknown_field'],
    ],
  );

  const rejected = await createPlant({ id, name: 'Fern' }, options).then(
    () => null,
    (e) => e,
  );
  assert.deepEqual([rejected.kind, rejected.status, rejected.code], ['rejected', 400, 3]);

  assert.throws(
    () => new PlantStoreClient({ baseUrl: 'ftp://x', token: TOKEN }),
    (e) => PlantStoreError.is(e) && e.kind === 'config',
  );
  const client = new PlantStoreClient(options);
  assert.deepEqual(await client.createPlant({ id: id + 1n, name: 'C' }), { name: 'C' });
  assert.deepEqual(validateNewPlant({ id: -0, name: 'a' }), {
    ok: true,
    value: { id: 0, name: 'a' },
  });

  const after = await server.stats();
  assert.equal(after.requests - before.requests, 3, 'the invalid plant was not sent');
});
