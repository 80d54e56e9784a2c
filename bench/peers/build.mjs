// The peers of the bench, generated from the contract and built into a scratch directory at bench time
// (nothing generated is committed):   const peers = await buildPeers(dir, findSpec())
// - hey-api + zod, + zod/mini, + valibot: @hey-api/openapi-ts from the contract (hey-api.config.mjs),
//   each wrapped by hey-api.ts;
// - openapi-fetch: its client typed by openapi-typescript's paths from the contract, in openapi-fetch.ts.
// Each peer's `entry.ts` exports `makeCreatePlant({ baseUrl, token, fetch })`. The adapters are type-checked
// against what was generated (tsc --noEmit), then each entry is bundled twice with rolldown:
// - node.mjs: the generated code and the adapter in one file, the libraries (zod, valibot, openapi-fetch)
//   imported from node_modules, as a Node user's compiled code imports them;
// - browser.js: everything in one minified file, for the per-call pages in Chromium.
// (Sizes and Vite's cold start build the entries themselves, from source, as a user's Vite app does.)
// Returns [{ name, label, validates, entry, node, browser }] (the paths of entry.ts, node.mjs, browser.js).
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(HERE, '../..');
const MODULES = join(HERE, '../node_modules'); // bench/package.json, installed by bench/run

/** The contract: $PLANT_STORE_SPEC, else the copy in this checkout (spec/openapi.json). */
export function findSpec() {
  return process.env.PLANT_STORE_SPEC ?? join(ROOT, 'spec/openapi.json');
}

export const PEERS = [
  { name: 'hey-api-zod', label: 'hey-api + zod', adapter: 'hey-api.ts', validates: true },
  { name: 'hey-api-zod-mini', label: 'hey-api + zod/mini', adapter: 'hey-api.ts', validates: true },
  { name: 'hey-api-valibot', label: 'hey-api + valibot', adapter: 'hey-api.ts', validates: true },
  {
    name: 'openapi-fetch',
    label: 'openapi-fetch (no validation)',
    adapter: 'openapi-fetch.ts',
    validates: false,
  },
];

export async function buildPeers(dir, spec) {
  mkdirSync(dir, { recursive: true });
  symlinkSync(MODULES, join(dir, 'node_modules'), 'dir');

  const { createClient } = await import('@hey-api/openapi-ts').catch((err) => {
    throw new Error(`${err.message}: bench/run installs bench/package.json`);
  });
  const { default: config } = await import('./hey-api.config.mjs');
  await createClient(config(spec, dir));

  const { default: openapiTS, astToString } = await import('openapi-typescript');
  mkdirSync(join(dir, 'openapi-fetch'), { recursive: true });
  writeFileSync(
    join(dir, 'openapi-fetch/schema.d.ts'),
    astToString(await openapiTS(pathToFileURL(spec))),
  );

  const peers = PEERS.map(({ adapter, ...peer }) => {
    const peerDir = join(dir, peer.name);
    copyFileSync(join(HERE, adapter), join(peerDir, 'entry.ts'));
    return {
      ...peer,
      entry: join(peerDir, 'entry.ts'),
      node: join(peerDir, 'node.mjs'),
      browser: join(peerDir, 'browser.js'),
    };
  });

  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'esnext',
        moduleResolution: 'bundler',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        lib: ['es2022', 'dom', 'dom.iterable'],
      },
      files: peers.map((p) => p.entry),
    }),
  );
  execFileSync(
    process.execPath,
    [join(MODULES, 'typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')],
    { timeout: 120_000, stdio: 'inherit' },
  );

  for (const peer of peers) {
    const library = (id) => !id.startsWith('.') && !isAbsolute(id);
    const node = await rolldown({ input: peer.entry, external: library, logLevel: 'silent' });
    await node.write({ file: peer.node, format: 'esm' });
    const browser = await rolldown({ input: peer.entry, platform: 'browser', logLevel: 'silent' });
    await browser.write({ file: peer.browser, format: 'esm', minify: true });
  }
  return peers;
}
